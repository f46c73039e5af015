/**
 * Re-analysis on request (`atelier reanalyze`): what an upgrade's better analysis (a file's embedded
 * caption and keywords, the `monochrome` tag, a compound file name's head noun) gives assets analysed
 * before it. Only a running server's workers analyse; this queues the work durably.
 */
import type { AssetEnrichmentStore } from '../db/ports/asset-enrichment-store.ts';
import type { AssetStore } from '../db/ports/asset-store.ts';
import type { JobQueue } from '../db/ports/job-queue.ts';
import type { Scope } from '../domain/scope.ts';

/** Assets queued per transaction of the job queue. */
const BATCH = 500;

/**
 * Queue a fresh `analyze` job (and so the embeddings that follow it) for every image asset of `scope`,
 * or of every scope when it is null; videos are not analysed. Each asset's `enrichment_status` becomes
 * `pending` first, so searches meanwhile count it in `indexing` and say "still analysing" rather than
 * "generate". User metadata is untouched (enrichment never overwrites it). Idempotent: an asset already
 * queued stays queued once; one being analysed runs again once it settles.
 * @param onBatch called after each batch with the number queued so far
 * @returns the number of assets queued
 * @throws what the stores throw (a batch already queued stays queued)
 */
export async function queueReanalysis(
  stores: {
    assets: Pick<AssetStore, 'browse'>;
    enrichment: Pick<AssetEnrichmentStore, 'imageSeqs' | 'setAssetStatus'>;
    jobs: Pick<JobQueue, 'enqueueMany'>;
  },
  scope: Scope | null,
  onBatch: (queued: number) => void = () => undefined,
): Promise<number> {
  const seqs = scope ? await imageSeqsOf(stores.assets, scope) : await stores.enrichment.imageSeqs();
  for (let i = 0; i < seqs.length; i += BATCH) {
    const batch = seqs.slice(i, i + BATCH);
    for (const seq of batch) await stores.enrichment.setAssetStatus(seq, 'pending');
    await stores.jobs.enqueueMany(batch, 'analyze');
    onBatch(i + batch.length);
  }
  return seqs.length;
}

/** Seqs of one scope's assets that are not videos, in browse order. */
async function imageSeqsOf(assets: Pick<AssetStore, 'browse'>, scope: Scope): Promise<number[]> {
  const out: number[] = [];
  for (let offset = 0; ; offset += 1000) {
    const { rows } = await assets.browse(scope, {}, offset, 1000);
    out.push(...rows.filter((r) => r.kind !== 'video').map((r) => r.seq));
    if (rows.length < 1000) return out;
  }
}
