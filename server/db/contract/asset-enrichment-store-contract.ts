import { describe, expect, it } from 'vitest';
import type { AnalysisWrite, AssetEnrichmentStore } from '../ports/asset-enrichment-store.ts';
import type { AssetStore } from '../ports/asset-store.ts';
import { JobLeaseLostError, type JobQueue } from '../ports/job-queue.ts';
import { CONTRACT_SCOPE, contractAsset, OTHER_TENANT } from './fixture.ts';

/** An enrichment store and the asset store of the same fresh database (tenants and workspaces as in fixture.ts). */
export interface AssetEnrichmentStoreHandle {
  enrichment: AssetEnrichmentStore;
  assets: AssetStore;
  /** the job queue of the same database (analyses written under a job's lease) */
  jobs: JobQueue;
  /** another enrichment store on the same database through connections of its own, as a second server process has */
  open: () => Promise<AssetEnrichmentStore>;
}

export interface AssetEnrichmentStoreFixture {
  create: () => Promise<AssetEnrichmentStoreHandle>;
}

const scope = CONTRACT_SCOPE;

const analysis = (over: Partial<AnalysisWrite> = {}): AnalysisWrite => ({
  colors: [
    { hex: '#a03020', name: 'red', share: 0.6 },
    { hex: '#f0f0f0', name: 'white', share: 0.25 },
  ],
  orientation: 'landscape',
  ocrText: 'SALE 50% OFF',
  ocrConfidence: 91.5,
  autoTags: ['red', 'text'],
  machineAltText: 'A red banner with white text',
  caption: 'a red sale banner',
  captionModelId: 'vision-1',
  ...over,
});

/**
 * The behaviour every `AssetEnrichmentStore` must have: analyses written to the facts row and the asset's
 * machine columns in one go, the user's alt text never overwritten, vector model ids kept across
 * re-analysis, status changes, the backfill seq lists over every scope, and a deleted asset neither
 * written nor listed — seen from a second process too; an analysis given a job lease lands only while
 * the lease is held.
 */
export function assetEnrichmentStoreContract(name: string, f: AssetEnrichmentStoreFixture): void {
  describe(`AssetEnrichmentStore contract: ${name}`, () => {
    it('writes an analysis under a job lease only while the lease is held: a lost lease writes nothing', async () => {
      const { enrichment, assets, jobs } = await f.create();
      const seq = await assets.insert(contractAsset());
      await jobs.enqueue(seq, 'analyze');
      const [job] = await jobs.claimDue('runner-a', 1, 60_000);
      expect(await enrichment.writeAnalysis(seq, analysis({ ocrText: 'FIRST RUN' }), { jobId: job!.id, owner: 'runner-a' })).toBe(true);
      // runner-a stalls past its lease; another runner takes the job over
      await jobs.finish(job!.id, 'runner-a', 'queued', null, 0);
      const [again] = await jobs.claimDue('runner-b', 1, 60_000);
      await expect(
        enrichment.writeAnalysis(seq, analysis({ ocrText: 'STALE RUN', machineAltText: 'stale' }), { jobId: job!.id, owner: 'runner-a' }),
      ).rejects.toBeInstanceOf(JobLeaseLostError);
      expect(await assets.bySeq(seq)).toMatchObject({ ocr_text: 'FIRST RUN', alt_text: 'A red banner with white text' });
      // an expired lease, not yet taken over, is not held either
      await jobs.finish(again!.id, 'runner-b', 'done', null, 0);
      await jobs.enqueue(seq, 'analyze');
      const [expired] = await jobs.claimDue('runner-c', 1, -1);
      await expect(
        enrichment.writeAnalysis(seq, analysis({ ocrText: 'LATE' }), { jobId: expired!.id, owner: 'runner-c' }),
      ).rejects.toBeInstanceOf(JobLeaseLostError);
      expect((await assets.bySeq(seq))?.ocr_text).toBe('FIRST RUN');
    });

    it('writes an analysis: the facts row, OCR text, auto tags and the machine alt text, seen by another process', async () => {
      const { enrichment, assets, open } = await f.create();
      const seq = await assets.insert(contractAsset());
      expect(await enrichment.facts(seq)).toBeUndefined();
      expect(await enrichment.writeAnalysis(seq, analysis())).toBe(true);
      const other = await open();
      expect(await other.facts(seq)).toEqual({
        asset_seq: seq,
        colors: [
          { hex: '#a03020', name: 'red', share: 0.6 },
          { hex: '#f0f0f0', name: 'white', share: 0.25 },
        ],
        orientation: 'landscape',
        ocr_confidence: 91.5,
        machine_alt_text: 'A red banner with white text',
        text_model_id: null,
        visual_model_id: null,
        caption: 'a red sale banner',
        caption_model_id: 'vision-1',
      });
      expect(await assets.bySeq(seq)).toMatchObject({
        ocr_text: 'SALE 50% OFF',
        auto_tags: ['red', 'text'],
        alt_text: 'A red banner with white text',
      });
    });

    it('never overwrites alt text the user wrote, and keeps the machine alt text beside it', async () => {
      const { enrichment, assets } = await f.create();
      const seq = await assets.insert(contractAsset({ alt_text: 'Our spring sale', user_fields: ['alt_text', 'tags'] }));
      expect(await enrichment.writeAnalysis(seq, analysis())).toBe(true);
      expect((await assets.bySeq(seq))?.alt_text).toBe('Our spring sale');
      expect((await enrichment.facts(seq))?.machine_alt_text).toBe('A red banner with white text');
      // a user who clears their alt text (user_fields no longer lists it) gets the next machine alt text
      const plain = await assets.insert(contractAsset({ alt_text: null, user_fields: ['tags'] }));
      await enrichment.writeAnalysis(plain, analysis({ machineAltText: null }));
      expect((await assets.bySeq(plain))?.alt_text).toBeNull();
    });

    it('re-analysis replaces the facts but keeps the models of the stored vectors; models need a facts row', async () => {
      const { enrichment, assets } = await f.create();
      const seq = await assets.insert(contractAsset());
      await enrichment.setTextModel(seq, 'text-1');
      await enrichment.setVisualModel(seq, 'visual-1');
      expect(await enrichment.facts(seq)).toBeUndefined();
      await enrichment.writeAnalysis(seq, analysis());
      await enrichment.setTextModel(seq, 'text-1');
      await enrichment.setVisualModel(seq, 'visual-1');
      await enrichment.writeAnalysis(
        seq,
        analysis({
          colors: [],
          orientation: 'portrait',
          ocrText: null,
          ocrConfidence: null,
          autoTags: [],
          caption: null,
          captionModelId: null,
        }),
      );
      expect(await enrichment.facts(seq)).toMatchObject({
        colors: [],
        orientation: 'portrait',
        ocr_confidence: null,
        caption: null,
        caption_model_id: null,
        text_model_id: 'text-1',
        visual_model_id: 'visual-1',
      });
      expect(await assets.bySeq(seq)).toMatchObject({ ocr_text: null, auto_tags: [] });
      await enrichment.setTextModel(seq, null);
      expect((await enrichment.facts(seq))?.text_model_id).toBeNull();
    });

    it('sets the enrichment status', async () => {
      const { enrichment, assets } = await f.create();
      const seq = await assets.insert(contractAsset());
      expect((await assets.bySeq(seq))?.enrichment_status).toBe('pending');
      for (const status of ['running', 'done', 'failed', 'skipped', 'pending'] as const) {
        await enrichment.setAssetStatus(seq, status);
        expect((await assets.bySeq(seq))?.enrichment_status).toBe(status);
      }
    });

    it('lists analysed and non-video assets of every scope in seq order; deleted assets are neither listed nor written', async () => {
      const { enrichment, assets } = await f.create();
      const a = await assets.insert(contractAsset());
      const video = await assets.insert(contractAsset({ kind: 'video', format: 'mp4', mime_type: 'video/mp4' }));
      const b = await assets.insert(contractAsset({}, OTHER_TENANT));
      const svg = await assets.insert(contractAsset({ kind: 'svg', format: 'svg', mime_type: 'image/svg+xml' }));
      expect(await enrichment.imageSeqs()).toEqual([a, b, svg]);
      expect(await enrichment.analyzedSeqs()).toEqual([]);
      for (const seq of [svg, b, a]) await enrichment.writeAnalysis(seq, analysis());
      expect(await enrichment.analyzedSeqs()).toEqual([a, b, svg]);

      expect(await assets.deleteMany(scope, [a, video])).toBe(2);
      expect(await enrichment.imageSeqs()).toEqual([b, svg]);
      expect(await enrichment.analyzedSeqs()).toEqual([b, svg]);
      expect(await enrichment.facts(a)).toBeUndefined();
      expect(await enrichment.writeAnalysis(a, analysis())).toBe(false);
      expect(await enrichment.facts(a)).toBeUndefined();
      await enrichment.setAssetStatus(a, 'done');
      await enrichment.setTextModel(a, 'text-1');
      expect(await assets.bySeq(a)).toBeUndefined();
    });
  });
}
