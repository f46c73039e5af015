/**
 * Asset search on both backends side by side (issue 16): lexical, semantic and hybrid p50/p95 through the
 * action layer's use case (`searchAssets`: query embedding, calibrated vector matches, lexical planner,
 * fusion, paging, hydration), on the same synthetic library in one tenant/workspace, grown step by step
 * through `BENCH_SCALES` (comma-separated, default 20,000 then 100,000); one table per scale.
 *
 * Backends, each composed by `buildApp` exactly as the server composes them (server/stores.ts):
 * - SQLite: a file in a temp dir;
 * - PostgreSQL 15 of the machine (ATELIER_TEST_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/test),
 *   a schema of its own dropped at the end: lexical only, it has no pgvector;
 * - PGlite with pgvector (server/db/contract/pglite-server.ts, in this process, one connection): every
 *   mode, up to `BENCH_PGLITE_MAX` assets (default 100,000; the table's header says its size). Loading
 *   100k takes about 2 minutes (rows 21 s, vectors with the HNSW build 97 s at load 4 on 2 cores): the
 *   build runs with maintenance_work_mem 1 GB (bench/backends-seed.ts); with the 64 MB default it ran
 *   past 11 minutes.
 *
 * Modes: `all` with the vector search (hybrid), `semantic`, and `all` without vectors (lexical: the
 * planner with typos, WordNet concepts and synonyms). Each round runs one query in every mode on every
 * backend, so drift in the machine's load spreads over all columns alike. Data and queries as in
 * vectors.bench.ts: 6 words of 3,000 real English words per asset, 100-d vectors from the static
 * GloVe+SIF embedder; rows written as bench/backends-seed.ts says. The top results of two queries are
 * printed per backend so a broken backend shows; nothing here asserts a time.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SearchArgsSchema } from '../shared/schemas/asset.ts';
import { buildApp, type App } from '../server/app.ts';
import { loadConfig } from '../server/config.ts';
import { startPgliteServer, type PgliteServer } from '../server/db/contract/pglite-server.ts';
import { createPgPool } from '../server/db/postgres/pool.ts';
import { TEST_POSTGRES_URL } from '../server/db/contract/pg-test-database.ts';
import type { SpaceRow } from '../server/db/ports/vector-store.ts';
import type { Scope } from '../server/domain/scope.ts';
import { createAssetVectorSearch } from '../server/enrichment/vector-search.ts';
import { searchAssets, type AssetVectorSearch } from '../server/assets/search.ts';
import { createLogger } from '../server/log.ts';
import type { TextEmbedder } from '../server/providers/embedder-types.ts';
import { createStaticEmbedder, defaultWordVectorCacheDir } from '../server/providers/embedder-static.ts';
import { createTenant } from '../server/tenancy/admin.ts';
import { seedBulkPg, seedThroughPorts, type SeedItem } from './backends-seed.ts';
import { wordPicker } from './random.ts';
import { percentile, table } from './stats.ts';

const SCALES = (process.env.BENCH_SCALES ?? '20000,100000').split(',').map(Number);
/** The largest library PGlite (WebAssembly, one connection) is grown to: see the header. */
const PGLITE_MAX = Number(process.env.BENCH_PGLITE_MAX ?? 100_000);
const QUERIES = 60;
const WARMUP = 5;
const MODES = ['hybrid (all)', 'semantic', 'lexical (all, no vectors)'] as const;
type Mode = (typeof MODES)[number];

/** A backend under test: its app, scope, text space and what it can search. */
interface Backend {
  name: string;
  app: App;
  scope: Scope;
  themeId: string;
  space: SpaceRow | null;
  vectors: AssetVectorSearch | null;
  /** assets written so far */
  n: number;
  /** largest scale this backend is grown to */
  max: number;
  /** write items n..target−1 */
  grow(items: SeedItem[]): Promise<{ rowsS: number; vectorsS: number }>;
  close(): Promise<void>;
}

const load = (): string =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
const log = (s: string): void => void process.stderr.write(`[backends.bench] ${s}; load ${load()}\n`);

/** Build an app on a backend (env as the server reads it), with a tenant, the text space and the vector search. */
async function open(
  name: string,
  env: Record<string, string>,
  embedder: TextEmbedder,
  max: number,
  seed: (b: Backend, items: SeedItem[]) => Promise<{ rowsS: number; vectorsS: number }>,
  close: () => Promise<void>,
): Promise<Backend> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-bench-backends-'));
  const config = loadConfig({ ATELIER_DATA_DIR: dir, ATELIER_LOG_LEVEL: 'silent', ATELIER_ENRICHMENT: '0', ...env });
  const app = await buildApp(config, createLogger('silent'));
  const t = await createTenant(app.library.tenancy, 'bench');
  const scope = { tenantId: t.tenant_id, workspaceId: t.workspace_id };
  const store = app.stores.vectors;
  const space = (await store.available()).ok ? await store.ensureSpace('asset_text', embedder.modelId, embedder.dimensions, 'ready') : null;
  const vectors = space
    ? createAssetVectorSearch({
        vectors: store,
        assets: app.stores.assets,
        calibrations: app.stores.calibrations,
        thesaurus: app.library.thesaurus,
        embedder,
        textSpace: async () => space,
        visualSpace: async () => space,
        computeVisual: async () => null,
        log: createLogger('silent'),
      })
    : null;
  const b: Backend = {
    name,
    app,
    scope,
    themeId: t.theme_id,
    space,
    vectors,
    n: 0,
    max,
    grow: (items) => seed(b, items),
    async close() {
      await app.close();
      await close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return b;
}

export default async function run(): Promise<void> {
  process.stdout.write(`load average (uptime) at start: ${load()} (${os.cpus().length} cores)\n`);
  const embedder = createStaticEmbedder({ cacheDir: defaultWordVectorCacheDir() });
  const pick = await wordPicker(42);
  const queries = Array.from({ length: QUERIES }, (_, i) => (i % 3 === 0 ? pick() : `${pick()} ${pick()}`));
  const warmups = Array.from({ length: WARMUP }, () => `${pick()} ${pick()}`);
  const texts = Array.from({ length: Math.max(...SCALES) }, () => Array.from({ length: 6 }, pick).join(' '));
  const items: SeedItem[] = [];
  for (let i = 0; i < texts.length; i += 5000) {
    const part = texts.slice(i, i + 5000);
    (await embedder.embed(part)).forEach((vector, k) => items.push({ text: part[k]!, vector }));
  }

  const pgSchema = `bench_${randomBytes(6).toString('hex')}`;
  let pglite: PgliteServer | null = null;
  const backends: Backend[] = [];
  try {
    backends.push(
      await open(
        'SQLite',
        {},
        embedder,
        Infinity,
        (b, xs) => seedThroughPorts(b.app.stores, b.scope, b.space!, xs, b.n),
        async () => {},
      ),
    );
    const pgEnv = { ATELIER_DATABASE_URL: TEST_POSTGRES_URL, ATELIER_DATABASE_SCHEMA: pgSchema, ATELIER_DATABASE_POOL_MAX: '4' };
    backends.push(
      await open(
        'PostgreSQL 15',
        pgEnv,
        embedder,
        Infinity,
        (b, xs) => bulk(TEST_POSTGRES_URL, pgSchema, b, xs),
        async () => {
          const p = createPgPool(TEST_POSTGRES_URL, { max: 1 });
          await p.query(`DROP SCHEMA IF EXISTS ${pgSchema} CASCADE`);
          await p.end();
        },
      ),
    );
    pglite = await startPgliteServer();
    const url = pglite.url;
    const liteEnv = { ATELIER_DATABASE_URL: url, ATELIER_DATABASE_SCHEMA: 'bench', ATELIER_DATABASE_POOL_MAX: '1' };
    backends.push(
      await open(
        'PGlite + pgvector',
        liteEnv,
        embedder,
        PGLITE_MAX,
        (b, xs) => bulk(url, 'bench', b, xs),
        async () => {},
      ),
    );

    for (const scale of SCALES) {
      for (const b of backends) {
        const target = Math.min(scale, b.max);
        if (target <= b.n) continue;
        const r = await b.grow(items.slice(0, target));
        log(`${b.name}: ${target} assets (rows ${r.rowsS.toFixed(1)} s, vectors ${r.vectorsS.toFixed(1)} s)`);
        b.n = target;
      }
      await measure(backends, scale, queries, warmups);
    }
  } finally {
    for (const b of backends) await b.close();
    await pglite?.stop();
  }
}

/** Bulk-write items b.n.. on a PostgreSQL backend through a pool of its own on the same schema. */
async function bulk(url: string, schema: string, b: Backend, xs: SeedItem[]): Promise<{ rowsS: number; vectorsS: number }> {
  const pool = createPgPool(url, { max: 1, onConnect: async (c) => void (await c.query(`SET search_path TO ${schema}, public`)) });
  try {
    return await seedBulkPg(pool, b.scope, b.space, xs, b.n);
  } finally {
    await pool.end();
  }
}

/** One search of a mode on a backend; null when the backend cannot run the mode. */
function search(b: Backend, mode: Mode, query: string): Promise<unknown> | null {
  const vectors = mode === 'lexical (all, no vectors)' ? null : b.vectors;
  if (mode !== 'lexical (all, no vectors)' && !vectors) return null;
  const args = SearchArgsSchema.parse({ theme_id: b.themeId, mode: mode === 'semantic' ? 'semantic' : 'all', query, limit: 20 });
  return searchAssets(b.app.library, b.scope, args, { themeId: b.themeId }, vectors);
}

/** Warm up, then interleaved rounds (query × mode × backend); print the side-by-side table and the guard. */
async function measure(backends: Backend[], scale: number, queries: string[], warmups: string[]): Promise<void> {
  // warm-up: loads partitions, calibrations, vocabularies and WordNet on each backend
  for (const q of warmups) for (const m of MODES) for (const b of backends) await search(b, m, q);
  const samples = new Map<string, number[]>();
  const t0 = performance.now();
  for (const q of queries) {
    for (const m of MODES) {
      for (const b of backends) {
        const t = performance.now();
        const run = search(b, m, q);
        if (!run) continue;
        await run;
        const key = `${b.name}|${m}`;
        samples.set(key, [...(samples.get(key) ?? []), performance.now() - t]);
      }
    }
  }
  log(`measured ${scale} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const cell = (b: Backend, m: Mode): string[] => {
    const s = samples.get(`${b.name}|${m}`);
    if (!s) return ['— (no pgvector)', '—'];
    const base = samples.get(`${backends[0]!.name}|${m}`)!;
    return [`${percentile(s, 50).toFixed(1)} / ${percentile(s, 95).toFixed(1)}`, (percentile(s, 50) / percentile(base, 50)).toFixed(2)];
  };
  process.stdout.write(
    `\nAsset search through searchAssets, limit 20, ${queries.length} queries per cell, interleaved; p50 / p95 ms and p50 ratio to SQLite ` +
      `(load average ${load()})\n\n`,
  );
  table(
    ['mode', ...backends.flatMap((b) => [`${b.name}, ${b.n.toLocaleString('en')} assets`, '× SQLite'])],
    MODES.map((m) => [m, ...backends.flatMap((b) => cell(b, m))]),
  );
  if (backends.some((b) => b.n !== scale)) {
    process.stdout.write(
      `\nNOTE: not every backend holds ${scale.toLocaleString('en')} assets (see the headers); ratios compare unequal scales.\n`,
    );
  }
  await guard(backends, queries.slice(0, 2));
}

/** Print the top 3 of two queries per mode and backend (names, relevance, how they matched) — for the eye, not asserted. */
async function guard(backends: Backend[], queries: string[]): Promise<void> {
  process.stdout.write('\nTop 3 per backend (correctness guard, not asserted)\n\n');
  const rows: string[][] = [];
  for (const q of queries) {
    for (const m of MODES) {
      const cells: string[] = [];
      for (const b of backends) {
        const run = search(b, m, q) as Promise<Awaited<ReturnType<typeof searchAssets>>> | null;
        if (!run) {
          cells.push('—');
          continue;
        }
        const page = await run;
        cells.push(
          `${page.total}: ${page.assets
            .slice(0, 3)
            .map((a) => `${a.name} ${a.relevance?.toFixed(2) ?? ''}`)
            .join(', ')}`,
        );
      }
      rows.push([`"${q}" ${m}`, ...cells]);
    }
  }
  table(['query, mode', ...backends.map((b) => `${b.name}: total: top 3 (relevance)`)], rows);
}
