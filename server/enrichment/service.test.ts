import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enrichmentSettled, importPhoto } from '../db/contract/enrichment-fixture.ts';
import { CONTRACT_SCOPE } from '../db/contract/fixture.ts';
import { seedContractScopes } from '../db/contract/sqlite-files.ts';
import type { VectorStore } from '../db/ports/vector-store.ts';
import type { TextEmbedder } from '../providers/embedder-types.ts';
import { createStaticEmbedder, defaultWordVectorCacheDir, STATIC_MODEL_ID } from '../providers/embedder-static.ts';
import { createLocalBlobStore, type BlobStore } from '../storage/blob-store.ts';
import { openSqliteStores, sqliteOf, type Stores } from '../stores.ts';
import { createEnrichment, type Enrichment } from './service.ts';

// The enrichment module on the SQLite stores when another process retires this process's vector space
// (one configured with another model made its own space ready): the jobs still succeed, the process stops
// storing vectors of that purpose and its search degrades, and nothing fails with a database error.
// Real stores on a temp file ("another process" is a second connection), real images, real embedders.

const scope = CONTRACT_SCOPE;
const staticEmbedder = createStaticEmbedder({ cacheDir: defaultWordVectorCacheDir() });
/** A second text model: 8-d bags of hashed letters (deterministic, offline). */
const hashEmbedder: TextEmbedder = {
  modelId: 'hash-8',
  dimensions: 8,
  embed: async (texts) =>
    texts.map((t) => {
      const v = new Float32Array(8).fill(0.01);
      for (const ch of t.toLowerCase()) v[ch.charCodeAt(0) % 8]! += 1;
      const n = Math.hypot(...v);
      return v.map((x) => x / n);
    }),
};

let dir: string;
let blobs: BlobStore;
const open: Stores[] = [];
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-enrich-'));
  blobs = createLocalBlobStore(path.join(dir, 'blobs'));
  await staticEmbedder.ready;
}, 120_000);
afterAll(async () => {
  for (const s of open) await s.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

let files = 0;
/** SQLite stores on a new file (tenants and workspaces seeded), and a function opening another process's stores on it. */
function database(): { stores: Stores; other: () => Stores } {
  const file = path.join(dir, `enrich-${++files}.db`);
  const connect = (): Stores => {
    const s = openSqliteStores(file);
    open.push(s);
    return s;
  };
  const stores = connect();
  seedContractScopes(sqliteOf(stores));
  return { stores, other: connect };
}

/** Log lines of warn level and above, parsed. */
function logSink(): { log: pino.Logger; lines: { level: number; msg: string; err?: unknown }[] } {
  const lines: { level: number; msg: string }[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as (typeof lines)[number]);
      done();
    },
  });
  return { log: pino({ level: 'warn' }, sink), lines };
}

function enrichmentOn(stores: Stores, embedder: TextEmbedder, log: pino.Logger, vectors: VectorStore = stores.vectors): Enrichment {
  return createEnrichment({
    assets: stores.assets,
    jobs: stores.jobs,
    enrichment: stores.enrichment,
    vectors,
    calibrations: stores.calibrations,
    blobs,
    embedder,
    ocr: null,
    captioner: null,
    concurrency: 1,
    retryBaseMs: 5,
    matchAlpha: 0.05,
    thesaurus: async () => null,
    log,
  });
}

const jobStates = (stores: Stores): { kind: string; state: string; attempts: number }[] =>
  sqliteOf(stores).prepare('SELECT kind, state, attempts FROM enrichment_jobs ORDER BY id').all() as never;

/** A red bicycle photo imported and enriched by a process on the static text model, which then stops. @returns its seq */
async function bicycleUnderStaticModel(stores: Stores): Promise<number> {
  const first = enrichmentOn(stores, staticEmbedder, logSink().log);
  first.start();
  const bike = await importPhoto(blobs, stores.assets, 'red-bicycle.jpg', '#c02818');
  await first.hook({ seq: bike, ...scope });
  await enrichmentSettled(stores.assets, [bike]);
  await first.close();
  return bike;
}

describe('enrichment when another process retires its vector space', () => {
  it('a job whose put meets the retired space succeeds without a vector, and the process stops searching that space', async () => {
    const { stores, other } = database();
    const { log, lines } = logSink();
    const enrichment = enrichmentOn(stores, staticEmbedder, log);
    try {
      enrichment.start();
      const bike = await importPhoto(blobs, stores.assets, 'red-bicycle.jpg', '#c02818');
      await enrichment.hook({ seq: bike, ...scope });
      await enrichmentSettled(stores.assets, [bike]);
      expect((await enrichment.vectors.semantic(scope, 'bicycle', {}, 10))?.hits[0]?.seq).toBe(bike);

      // another process, configured with another text model, makes its space ready and retires ours
      const elsewhere = other().vectors;
      const [ours] = await elsewhere.liveSpaces('asset_text');
      await elsewhere.ensureSpace('asset_text', hashEmbedder.modelId, hashEmbedder.dimensions, 'ready');
      await elsewhere.retire(ours!);

      const lake = await importPhoto(blobs, stores.assets, 'mountain-lake.jpg', '#2050c0');
      await enrichment.hook({ seq: lake, ...scope });
      await enrichmentSettled(stores.assets, [lake]);
      expect((await stores.assets.bySeq(lake))?.enrichment_status).toBe('done');
      expect(jobStates(stores).filter((j) => j.state !== 'done' || j.attempts !== 1)).toEqual([]);
      expect(await stores.enrichment.facts(lake)).toMatchObject({ text_model_id: null, visual_model_id: expect.any(String) });
      expect(lines.map((l) => l.msg)).toEqual([expect.stringMatching(/^vector space retired by another process/)]);
      // the retired space is not searched: semantic search degrades to lexical
      expect(await enrichment.vectors.semantic(scope, 'lake', {}, 10)).toBeNull();
    } finally {
      await enrichment.close();
    }
  });

  it('a space retired just before its promotion is left retired: the other live space stays, search degrades, no job fails', async () => {
    const { stores, other } = database();
    await bicycleUnderStaticModel(stores);
    const [staticSpace] = await stores.vectors.liveSpaces('asset_text');
    expect(staticSpace).toMatchObject({ model_id: STATIC_MODEL_ID, status: 'ready' });

    // a process with a new model builds its space; another process (still on the static model) retires
    // that space right before it is promoted
    const elsewhere = other().vectors;
    let promoting!: () => void;
    const promoted = new Promise<void>((r) => (promoting = r));
    const raced: VectorStore = {
      ...stores.vectors,
      async setStatus(space, status) {
        promoting();
        await elsewhere.retire(space);
        return stores.vectors.setStatus(space, status);
      },
    };
    const { log, lines } = logSink();
    const second = enrichmentOn(stores, hashEmbedder, log, raced);
    second.start();
    // the backfill embed of the new model runs, then the promotion meets the retired space
    await promoted;
    // close waits for the job in flight, whose settling promotes
    await second.close();
    expect(lines.map((l) => l.msg)).toEqual([expect.stringMatching(/^vector space retired by another process/)]);
    expect(await stores.vectors.liveSpaces('asset_text')).toEqual([staticSpace]);
    expect(await second.vectors.semantic(scope, 'bicycle', {}, 10)).toBeNull();
    expect(jobStates(stores).filter((j) => j.state !== 'done')).toEqual([]);
  });

  it('a space another process finished building is searched here once it is ready, without a restart', async () => {
    const { stores, other } = database();
    const bike = await bicycleUnderStaticModel(stores);

    // this process moves to a new text model: its space is built in the background, and it runs no
    // worker, so another process on the same model takes the backfill job and promotes the space
    const here = enrichmentOn(stores, hashEmbedder, logSink().log);
    try {
      expect(await here.vectors.semantic(scope, 'bicycle', {}, 10)).toBeNull();
      const elsewhere = enrichmentOn(other(), hashEmbedder, logSink().log);
      elsewhere.start();
      const until = Date.now() + 30_000;
      while (!(await stores.vectors.liveSpaces('asset_text')).some((s) => s.model_id === hashEmbedder.modelId && s.status === 'ready')) {
        if (Date.now() > until) throw new Error('the other process never promoted the space');
        await new Promise((r) => setTimeout(r, 20));
      }
      await elsewhere.close();
      expect((await here.vectors.semantic(scope, 'bicycle', {}, 10))?.hits.map((h) => h.seq)).toContain(bike);
    } finally {
      await here.close();
    }
  });
});
