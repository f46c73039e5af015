/**
 * Vector retrieval at 100k assets (issue 4): semantic KNN through sqlite-vec (exact, cosine, one
 * workspace partition) vs a binary-quantised `bit[N]` prefilter re-ranked exactly (recall@10 against
 * exact), the same KNN as a plain Float32Array scan in this process (the physical floor), and the
 * end-to-end `searchAssets` semantic and hybrid `all` (RRF of BM25 + KNN) through the library use case.
 * Data: 100k synthetic assets whose texts are 6 words drawn from 3,000 real English words, embedded by
 * the static GloVe+SIF embedder (100-d), plus a random 384-d set (MiniLM-sized) for the raw KNN rows.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SearchArgsSchema } from '../shared/schemas/asset.ts';
import { buildApp } from '../server/app.ts';
import { loadConfig } from '../server/config.ts';
import { createVectorQueries, type SpaceRow } from '../server/db/vectors.ts';
import { createCalibrationQueries } from '../server/db/vector-calibrations.ts';
import { createAssetVectorSearch } from '../server/enrichment/vector-search.ts';
import { searchAssets } from '../server/library/search.ts';
import { createLogger } from '../server/log.ts';
import { createStaticEmbedder, defaultWordVectorCacheDir, loadWordVectors, ensureWordVectors } from '../server/providers/embedder-static.ts';
import { createTenant } from '../server/tenancy/admin.ts';
import { percentile, table, timeIt } from './stats.ts';

const N = 100_000;
const QUERIES = 40;

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 2 ** 32);
}

/** Top-k by cosine over unit vectors in one Float32Array (dot product + bounded insertion). */
function scanTopK(all: Float32Array, dims: number, q: Float32Array, k: number): number[] {
  const best: { i: number; s: number }[] = [];
  const n = all.length / dims;
  for (let r = 0; r < n; r++) {
    let s = 0;
    const o = r * dims;
    for (let d = 0; d < dims; d++) s += all[o + d]! * q[d]!;
    if (best.length < k || s > best[best.length - 1]!.s) {
      let j = best.length < k ? best.length : k - 1;
      while (j > 0 && best[j - 1]!.s < s) { best[j] = best[j - 1]!; j--; }
      best[j] = { i: r, s };
    }
  }
  return best.map((b) => b.i);
}

export default async function run(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-bench-vec-'));
  const config = loadConfig({ ATELIER_DATA_DIR: dir, ATELIER_LOG_LEVEL: 'silent', ATELIER_ENRICHMENT: '0' });
  const app = buildApp(config, createLogger('silent'));
  app.startWorkers();
  try {
    const t = createTenant(app.library.tenancy, 'bench');
    const scope = { tenantId: t.tenant_id, workspaceId: t.workspace_id };
    const embedder = createStaticEmbedder({ cacheDir: defaultWordVectorCacheDir() });
    const wv = loadWordVectors(await ensureWordVectors(defaultWordVectorCacheDir()));
    const words: string[] = [];
    for (const [w, r] of wv.index) if (r >= 800 && r < 20_000 && /^[a-z]{4,}$/.test(w)) words.push(w);
    const vocab = words.slice(0, 3000);
    const rand = rng(42);
    const pick = () => vocab[Math.floor(rand() * vocab.length)]!;
    const texts = Array.from({ length: N }, () => Array.from({ length: 6 }, pick).join(' '));

    // 1. assets rows (FTS5 kept by triggers) in one transaction
    let t0 = performance.now();
    const now = new Date().toISOString();
    app.db.transaction(() => {
      for (let i = 0; i < N; i++) {
        app.library.assets.insert({
          id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, tenant_id: scope.tenantId, workspace_id: scope.workspaceId,
          kind: 'image', format: 'jpeg', mime_type: 'image/jpeg', width: 800, height: 600, size_bytes: 1000, sha256: `s${i}`, source_sha256: `s${i}`,
          converted_from: null, name: `${texts[i]!.split(' ').slice(0, 2).join('-')}-${i}.jpg`, name_words: texts[i]!.split(' ').slice(0, 2).join(' '), alt_text: texts[i]!, tags: [], purpose: null,
          category: i % 4 === 0 ? 'background' : null, subtype: null, user_fields: [], source: 'seed', source_url: null, provenance: null,
          enrichment_status: 'done', created_at: now, renditions: [],
        });
      }
    })();
    const insertRowsMs = performance.now() - t0;

    // 2. embed and store in the vec0 space (float[100], cosine, partitioned by workspace)
    t0 = performance.now();
    const vecs = await embedder.embed(texts);
    const embedMs = performance.now() - t0;
    const vq = createVectorQueries(app.db);
    const space: SpaceRow = vq.ensureSpace('asset_text', embedder.modelId, embedder.dimensions, 'ready');
    t0 = performance.now();
    app.db.transaction(() => { for (let i = 0; i < N; i++) vq.put(space, i + 1, scope.workspaceId, vecs[i]!, { kind: 'image', category: i % 4 === 0 ? 'background' : null, subtype: null }); })();
    const vecInsertMs = performance.now() - t0;

    // binary-quantised copy for the prefilter: sign bits, padded to a multiple of 8 (sqlite-vec bit[N])
    const BITS = Math.ceil(embedder.dimensions / 8) * 8;
    const toBits = (v: Float32Array): Buffer => {
      const b = Buffer.alloc(BITS / 8);
      for (let d = 0; d < v.length; d++) if (v[d]! > 0) b[d >> 3]! |= 1 << (d & 7);
      return b;
    };
    app.db.exec(`CREATE VIRTUAL TABLE bench_bits USING vec0(asset_seq INTEGER PRIMARY KEY, embedding bit[${BITS}])`);
    t0 = performance.now();
    const insBits = app.db.prepare('INSERT INTO bench_bits(asset_seq, embedding) VALUES (?, vec_bit(?))');
    app.db.transaction(() => { for (let i = 0; i < N; i++) insBits.run(BigInt(i + 1), toBits(vecs[i]!)); })();
    const bitsMs = performance.now() - t0;

    const queries = Array.from({ length: QUERIES }, () => `${pick()} ${pick()}`);
    const qv = await embedder.embed(queries);
    const blob = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);
    const bitKnn = app.db.prepare(`SELECT asset_seq FROM bench_bits WHERE embedding MATCH vec_bit(?) AND k = ?`);
    const getVec = app.db.prepare(`SELECT embedding FROM vec_space_${space.id} WHERE asset_seq = ?`);
    const exactTop = qv.map((q) => vq.knn(space, scope.workspaceId, q, 10).map((h) => h.seq));
    const prefilter = (q: Float32Array, over: number): number[] => {
      const cand = (bitKnn.all(toBits(q), 10 * over) as { asset_seq: number }[]).map((r) => r.asset_seq);
      // exact re-rank in JS over the candidates' float vectors (point lookups by rowid)
      const scored = cand.map((seq) => {
        const e = (getVec.get(BigInt(seq)) as { embedding: Buffer }).embedding;
        const v = new Float32Array(e.buffer, e.byteOffset, e.byteLength / 4);
        let dot = 0;
        for (let d = 0; d < v.length; d++) dot += v[d]! * q[d]!;
        return { seq, dot };
      });
      return scored.sort((a, b) => b.dot - a.dot).slice(0, 10).map((x) => x.seq);
    };
    const recall = (over: number) => {
      let hit = 0;
      qv.forEach((q, i) => { const got = new Set(prefilter(q, over)); hit += exactTop[i]!.filter((s) => got.has(s)).length; });
      return hit / (QUERIES * 10);
    };
    let qi = 0;
    const next = () => qv[qi++ % QUERIES]!;
    const hamming = await timeIt(() => bitKnn.all(toBits(next()), 100), QUERIES);
    const exact = await timeIt(() => vq.knn(space, scope.workspaceId, next(), 10), QUERIES);
    const pre10 = await timeIt(() => prefilter(next(), 10), QUERIES);
    const pre40 = await timeIt(() => prefilter(next(), 40), QUERIES);
    const flat = new Float32Array(N * embedder.dimensions);
    vecs.forEach((v, i) => flat.set(v, i * embedder.dimensions));
    const scan = await timeIt(() => scanTopK(flat, embedder.dimensions, next(), 10), QUERIES);
    let scanAgree = 0;
    qv.forEach((q, i) => { const s = new Set(scanTopK(flat, embedder.dimensions, q, 10).map((r) => r + 1)); scanAgree += exactTop[i]!.filter((x) => s.has(x)).length; });

    // 3. end to end through the library use case (query embedding + KNN + fetch rows + present)
    const vectors = createAssetVectorSearch({ vectors: vq, assets: app.library.assets, calibrations: createCalibrationQueries(app.db), thesaurus: app.library.thesaurus, embedder, textSpace: () => space, visualSpace: () => space, computeVisual: async () => null, log: createLogger('silent') });
    const theme = { themeId: t.theme_id };
    const args = (mode: string, q: string, extra: Record<string, unknown> = {}) => SearchArgsSchema.parse({ theme_id: t.theme_id, mode, query: q, limit: 20, ...extra });
    const semE2e = await timeIt(() => searchAssets(app.library, scope, args('semantic', queries[qi++ % QUERIES]!), theme, vectors), 20);
    const semFiltered = await timeIt(() => searchAssets(app.library, scope, args('semantic', queries[qi++ % QUERIES]!, { category: 'background' }), theme, vectors), 20);
    const hybrid = await timeIt(() => searchAssets(app.library, scope, args('all', queries[qi++ % QUERIES]!), theme, vectors), 20);

    // 4. raw KNN at 384-d (MiniLM-sized random unit vectors) for comparison with research/stack.md §2
    const D2 = 384;
    app.db.exec(`CREATE VIRTUAL TABLE bench_384 USING vec0(asset_seq INTEGER PRIMARY KEY, workspace_id TEXT PARTITION KEY, embedding float[${D2}] distance_metric=cosine)`);
    const ins = app.db.prepare('INSERT INTO bench_384(asset_seq, workspace_id, embedding) VALUES (?, ?, ?)');
    const unit = () => { const v = new Float32Array(D2); let s = 0; for (let d = 0; d < D2; d++) { v[d] = rand() - 0.5; s += v[d]! ** 2; } for (let d = 0; d < D2; d++) v[d]! /= Math.sqrt(s); return v; };
    const flat384 = new Float32Array(N * D2);
    app.db.transaction(() => { for (let i = 0; i < N; i++) { const v = unit(); flat384.set(v, i * D2); ins.run(BigInt(i + 1), scope.workspaceId, blob(v)); } })();
    const knn384 = app.db.prepare(`SELECT asset_seq FROM bench_384 WHERE embedding MATCH ? AND k = 10 AND workspace_id = ?`);
    const q384 = Array.from({ length: 10 }, unit);
    let qj = 0;
    const exact384 = await timeIt(() => knn384.all(blob(q384[qj++ % 10]!), scope.workspaceId), 10);
    const scan384 = await timeIt(() => scanTopK(flat384, D2, q384[qj++ % 10]!, 10), 10);

    const f = (x: number) => x.toFixed(1);
    process.stdout.write(`\n100,000 synthetic assets, one workspace; setup: rows+FTS ${f(insertRowsMs / 1000)} s, embed ${f(embedMs / 1000)} s, vec0 insert ${f(vecInsertMs / 1000)} s, bit[104] copy ${f(bitsMs / 1000)} s\n\n`);
    table(['operation (top-10 unless noted)', 'p50 ms', 'p95 ms', 'recall@10 vs exact'], [
      ['sqlite-vec exact KNN, float[100] cosine, partitioned', f(percentile(exact, 50)), f(percentile(exact, 95)), '1.00'],
      ['binary bit[104] hamming KNN alone, k=100', f(percentile(hamming, 50)), f(percentile(hamming, 95)), '—'],
      ['binary bit[104] hamming prefilter k=100, exact re-rank', f(percentile(pre10, 50)), f(percentile(pre10, 95)), recall(10).toFixed(2)],
      ['binary bit[104] hamming prefilter k=400, exact re-rank', f(percentile(pre40, 50)), f(percentile(pre40, 95)), recall(40).toFixed(2)],
      ['plain Float32Array scan in-process, 100-d', f(percentile(scan, 50)), f(percentile(scan, 95)), (scanAgree / (QUERIES * 10)).toFixed(2)],
      ['searchAssets semantic (embed + KNN + rows), limit 20', f(percentile(semE2e, 50)), f(percentile(semE2e, 95)), '—'],
      ['searchAssets semantic + category filter (25% of rows)', f(percentile(semFiltered, 50)), f(percentile(semFiltered, 95)), '—'],
      ['searchAssets all = RRF(BM25, KNN), limit 20', f(percentile(hybrid, 50)), f(percentile(hybrid, 95)), '—'],
      ['sqlite-vec exact KNN, float[384] random (MiniLM-sized)', f(percentile(exact384, 50)), f(percentile(exact384, 95)), '—'],
      ['plain Float32Array scan in-process, 384-d', f(percentile(scan384, 50)), f(percentile(scan384, 95)), '—'],
    ]);
  } finally {
    await app.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
