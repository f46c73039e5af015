import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enrichmentSettled, importPhoto } from '../db/contract/enrichment-fixture.ts';
import { CONTRACT_SCOPE } from '../db/contract/fixture.ts';
import { pgliteServerPerSuite, schemasPerCase, seedPgContractScopes } from '../db/contract/pg-schemas.ts';
import { createPgAssetEnrichmentStore } from '../db/postgres/asset-enrichment.ts';
import { createPgAssetStore } from '../db/postgres/assets.ts';
import { createPgCalibrationStore } from '../db/postgres/calibrations.ts';
import { createPgJobQueue } from '../db/postgres/job-queue.ts';
import type { PgPool } from '../db/postgres/pool.ts';
import { createPgVectorStore } from '../db/postgres/vector-store.ts';
import { createLogger, type Logger } from '../log.ts';
import { createStaticEmbedder, defaultWordVectorCacheDir, STATIC_MODEL_ID } from '../providers/embedder-static.ts';
import { createLocalBlobStore, type BlobStore } from '../storage/blob-store.ts';
import { createEnrichment, type Enrichment } from './service.ts';

// The enrichment module end to end on the PostgreSQL stores: jobs claimed from the PostgreSQL queue,
// analyses written to the asset and its facts row, text vectors stored with pgvector, and semantic
// search finding the asset by KNN. Vectors need pgvector, which the machine's PostgreSQL 15 lacks:
// that case runs on PGlite (pglite-server.ts) with the same node-postgres code; the machine's
// PostgreSQL 15 runs the degraded case (no vector store: analyses still written, semantic search
// degrades). Real images (sharp), the real static embedder, a real blob directory.

const scope = CONTRACT_SCOPE;
const embedder = createStaticEmbedder({ cacheDir: defaultWordVectorCacheDir() });
let blobDir: string;
let blobs: BlobStore;
beforeAll(async () => {
  blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-enrich-pg-'));
  blobs = createLocalBlobStore(blobDir);
  await embedder.ready;
}, 120_000);
afterAll(() => fs.rmSync(blobDir, { recursive: true, force: true }));

/** Enrichment over the PostgreSQL stores of one pool (PGlite serves one session: one connection for all). */
function enrichmentOn(pool: PgPool, log: Logger): Enrichment {
  return createEnrichment({
    assets: createPgAssetStore(pool),
    jobs: createPgJobQueue(pool),
    enrichment: createPgAssetEnrichmentStore(pool),
    vectors: createPgVectorStore(pool),
    calibrations: createPgCalibrationStore(pool),
    blobs,
    embedder,
    ocr: null,
    captioner: null,
    concurrency: 1,
    retryBaseMs: 20,
    matchAlpha: 0.05,
    thesaurus: async () => null,
    log,
  });
}

const schemas = schemasPerCase();

describe('enrichment on PostgreSQL + pgvector (PGlite)', () => {
  const server = pgliteServerPerSuite();

  it('claims the jobs, writes the analysis, stores the text vector, and semantic KNN finds the asset', async () => {
    const schema = schemas.track(await server.schema());
    const pool = schema.pool();
    await seedPgContractScopes(pool);
    const assets = createPgAssetStore(pool);
    const enrichment = enrichmentOn(pool, createLogger('silent'));
    try {
      enrichment.start();
      const bike = await importPhoto(blobs, assets, 'red-bicycle.jpg', '#c02818');
      const lake = await importPhoto(blobs, assets, 'mountain-lake.jpg', '#2050c0');
      await enrichment.hook({ seq: bike, ...scope });
      await enrichment.hook({ seq: lake, ...scope });
      await enrichmentSettled(assets, [bike, lake]);

      // both jobs of each asset were claimed once and finished
      const jobs = await pool.query<{ asset_seq: number; kind: string; state: string; attempts: number }>(
        'SELECT asset_seq, kind, state, attempts FROM enrichment_jobs ORDER BY asset_seq, kind',
      );
      expect(jobs.rows).toEqual([
        { asset_seq: bike, kind: 'analyze', state: 'done', attempts: 1 },
        { asset_seq: bike, kind: 'embed_text', state: 'done', attempts: 1 },
        { asset_seq: lake, kind: 'analyze', state: 'done', attempts: 1 },
        { asset_seq: lake, kind: 'embed_text', state: 'done', attempts: 1 },
      ]);
      // the analysis: facts row, machine alt text on the asset (the user gave none), models of the stored vectors
      const row = await assets.bySeq(bike);
      expect(row?.enrichment_status).toBe('done');
      expect(row?.alt_text).toBeTruthy();
      const facts = createPgAssetEnrichmentStore(pool);
      expect(await facts.facts(bike)).toMatchObject({
        orientation: 'landscape',
        machine_alt_text: row?.alt_text,
        text_model_id: STATIC_MODEL_ID,
        visual_model_id: expect.any(String),
      });
      expect((await facts.facts(bike))!.colors).not.toEqual([]);
      // the text vector, in pgvector
      const vectors = createPgVectorStore(pool);
      const [text] = await vectors.liveSpaces('asset_text');
      expect(text).toMatchObject({ model_id: STATIC_MODEL_ID, status: 'ready' });
      expect((await vectors.get(scope, text!, bike))?.length).toBe(embedder.dimensions);
      expect(await vectors.count(scope, text!)).toBe(2);

      // semantic search: KNN through the PostgreSQL vector store, nearest first
      const bicycle = await enrichment.vectors.semantic(scope, 'bicycle', {}, 10);
      expect(bicycle?.hits[0]?.seq).toBe(bike);
      const lakeHits = await enrichment.vectors.semantic(scope, 'lake', {}, 10);
      expect(lakeHits?.hits[0]?.seq).toBe(lake);
      // similar: the visual space, the source itself excluded by the filter
      const similar = await enrichment.vectors.similar(scope, bike, { excludeSeq: bike }, 10);
      expect(similar?.hits.map((h) => h.seq)).toEqual([lake]);
    } finally {
      await enrichment.close();
    }
  });
});

describe('enrichment on the machine PostgreSQL 15 (no pgvector)', () => {
  it('says the vector store is unavailable, still writes the analysis, and semantic search degrades', async () => {
    const schema = await schemas.create();
    const pool = schema.pool(4);
    await seedPgContractScopes(pool);
    const assets = createPgAssetStore(pool);
    const lines: { level: number; msg: string; reason?: string }[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(JSON.parse(chunk.toString()) as (typeof lines)[number]);
        done();
      },
    });
    const enrichment = enrichmentOn(pool, pino({ level: 'warn' }, sink));
    try {
      enrichment.start();
      const seq = await importPhoto(blobs, assets, 'red-bicycle.jpg', '#c02818');
      await enrichment.hook({ seq, ...scope });
      await enrichmentSettled(assets, [seq]);
      expect((await assets.bySeq(seq))?.enrichment_status).toBe('done');
      const facts = await createPgAssetEnrichmentStore(pool).facts(seq);
      expect(facts).toMatchObject({ orientation: 'landscape', text_model_id: null, visual_model_id: null });
      const jobs = await pool.query<{ kind: string; state: string }>('SELECT kind, state FROM enrichment_jobs WHERE asset_seq = $1', [seq]);
      expect(jobs.rows).toEqual([{ kind: 'analyze', state: 'done' }]);
      expect(await enrichment.vectors.semantic(scope, 'bicycle', {}, 10)).toBeNull();
      expect(await enrichment.vectors.similar(scope, seq, {}, 10)).toBeNull();
      const warning = lines.find((l) => l.msg.startsWith('vector store unavailable'));
      expect(warning?.reason).toMatch(/pgvector/);
    } finally {
      await enrichment.close();
    }
  });
});
