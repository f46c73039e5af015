/**
 * `npm run eval`: relevance of asset search and list_products on judged query sets, through the real
 * server and an MCP client (the same path an agent takes).
 *
 * Sets:
 *   curated    demo/images imported by the demo seed with demo-metadata.json (alt text, tags, purpose)
 *   filenames  the same files imported with their original file names only (no typed metadata)
 *   neutral    the same files imported as camera names (IMG_0001.jpg, …, in a fixed shuffled order) with no
 *              typed metadata: only the file itself (its pixels: OCR, colours, an image model when configured;
 *              and its embedded caption and keywords, when it has them) can match
 *   products   the demo catalog (demo/catalog, Shopify's demo CSVs)
 * Modes: assets all and semantic; products hybrid (default), lexical and semantic.
 * Metrics (eval/metrics.ts): nDCG@10, recall@3, hit@3, unrelated results in the top 10 of match queries,
 * and false positives (any result) on no-match queries; false positives and false negatives per query
 * (results judged 0; empty answers and relevant items missing), summed per set and mode, for all
 * queries and for each half (development / held-out, `halfOf`: a hash of the query text).
 *
 * Options: --sets curated,filenames,neutral,products  --save <label> (eval/results/<label>.json)
 *          --asset-queries <file>, --product-queries <file> (judged queries under eval/queries/; default
 *          assets.json and products.json; paraphrases-*.json: longer descriptive queries that say what a
 *          picture or product is in other words than its text, and descriptive queries about nothing held;
 *          unrelated-words.json: single nouns for things no demo photo shows, all no-match queries;
 *          colour-products.json: product queries with a colour word, and colours the shop lacks)
 *          --compare <label> (print deltas against a saved run)  --verbose (per-query top results)
 *          --no-ocr (faster; OCR is on by default, as in production)
 *          --half dev|held-out (run one half only: tune on dev, never look at held-out per query)
 *          --backend sqlite|pglite (default sqlite; pglite: the same server on PostgreSQL with pgvector —
 *          PGlite in this process over the wire protocol, one connection — to compare the backends)
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEMO_DIR, startTestServer, type TestClient, type TestServer } from '../e2e/mcp/harness.ts';
import { startPgliteServer } from '../server/db/contract/pglite-server.ts';
import type { Scope } from '../server/domain/scope.ts';
import { listImageFiles, seedDemo } from '../server/seed.ts';
import { halfOf, scoreRun, summarize, type Half, type Judgements, type QueryRun, type QueryScore, type Summary } from './metrics.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const IMAGES = path.join(DEMO_DIR, 'images');
const MIME: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  avif: 'image/avif',
  heic: 'image/heic',
  gif: 'image/gif',
};

interface JudgedQuery {
  q: string;
  type: string;
  rel: Judgements;
}
const onlyHalf = arg('half');
if (onlyHalf !== undefined && onlyHalf !== 'dev' && onlyHalf !== 'held-out')
  throw new Error(`--half must be dev or held-out (got ${onlyHalf})`);
const loadQueries = (file: string): JudgedQuery[] =>
  (JSON.parse(fs.readFileSync(path.join(here, 'queries', file), 'utf8')) as { queries: JudgedQuery[] }).queries.filter(
    (q) => !onlyHalf || halfOf(q.q) === onlyHalf,
  );

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const flag = (name: string): boolean => process.argv.includes(`--${name}`);
const sets = (arg('sets') ?? 'curated,filenames,neutral,products').split(',');
const assetQueries = arg('asset-queries') ?? 'assets.json';
const productQueries = arg('product-queries') ?? 'products.json';
const verbose = flag('verbose');
const env = { ATELIER_OCR: flag('no-ocr') ? '0' : '1' };

/** Key of a returned asset: its demo path, matched by file stem (a HEIC import is stored as .png). */
const stemKeys = new Map(
  listImageFiles(IMAGES).map((f) => [
    path
      .basename(f)
      .replace(/\.[^.]+$/, '')
      .toLowerCase(),
    path.relative(IMAGES, f).split(path.sep).join('/'),
  ]),
);
const assetKey = (name: string): string => stemKeys.get(name.replace(/\.[^.]+$/, '').toLowerCase()) ?? `?${name}`;

/** Wait until no asset of the scope is pending or running enrichment (read through the asset store, any backend). */
async function waitForEnrichment(srv: TestServer, scope: Scope): Promise<void> {
  for (;;) {
    const { rows } = await srv.app.stores.assets.browse(scope, { maxSeq: Number.MAX_SAFE_INTEGER }, 0, 10_000);
    if (!rows.some((r) => r.enrichment_status === 'pending' || r.enrichment_status === 'running')) return;
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function runAssets(
  c: TestClient,
  themeId: string,
  mode: string,
  queries: JudgedQuery[],
  keyOf: (name: string) => string = assetKey,
): Promise<QueryRun[]> {
  const runs: QueryRun[] = [];
  for (const jq of queries) {
    const r = await c.call('svc_asset_library', 'search', { theme_id: themeId, query: jq.q, mode, limit: 10 });
    if (r.isError) throw new Error(`search "${jq.q}" (${mode}) failed: ${JSON.stringify(r.error)}`);
    const assets = (r.structured.assets ?? []) as { name: string }[];
    runs.push({ ...jq, ranked: assets.map((a) => keyOf(a.name)), total: (r.structured.total as number) ?? 0 });
  }
  return runs;
}

async function runProducts(c: TestClient, storeId: string, mode: string, queries: JudgedQuery[]): Promise<QueryRun[]> {
  const runs: QueryRun[] = [];
  for (const jq of queries) {
    const r = await c.call('svc_catalog', 'list_products', { store_id: storeId, query: jq.q, search_mode: mode, limit: 10 });
    if (r.isError) throw new Error(`list_products "${jq.q}" (${mode}) failed: ${JSON.stringify(r.error)}`);
    if (r.structured.degraded_from)
      throw new Error(`list_products "${jq.q}" degraded from ${JSON.stringify(r.structured.degraded_from)}: the index is not ready`);
    const items = (r.structured.items ?? []) as { handle: string }[];
    runs.push({ ...jq, ranked: items.map((p) => p.handle), total: (r.structured.total as number) ?? 0 });
  }
  return runs;
}

interface ModeResult {
  set: string;
  mode: string;
  summary: Summary;
  /** the same runs scored per half */
  halves: Record<Half, Summary>;
  scores: QueryScore[];
  runs: QueryRun[];
}
const results: ModeResult[] = [];

function record(set: string, mode: string, runs: QueryRun[]): void {
  const scores = scoreRun(runs);
  const half = (h: Half) => summarize(scores.filter((x) => halfOf(x.q) === h));
  results.push({ set, mode, summary: summarize(scores), halves: { dev: half('dev'), 'held-out': half('held-out') }, scores, runs });
  if (verbose) {
    process.stdout.write(`\n### ${set} / ${mode}\n`);
    for (const [i, r] of runs.entries()) {
      const s = scores[i]!;
      const top = r.ranked
        .slice(0, 5)
        .map((k) => `${k.split('/').pop()}${r.rel[k] ? `(${r.rel[k]})` : ''}`)
        .join(', ');
      process.stdout.write(
        `${s.ndcg10.toFixed(2)}  ${halfOf(r.q) === 'dev' ? 'D' : 'H'} ${r.type.padEnd(11)} ${JSON.stringify(r.q).padEnd(26)} FP ${s.fp} FN ${s.noMatch ? '-' : s.returned === 0 ? 'empty' : s.fn} total ${String(r.total).padStart(2)}: ${top || '—'}\n`,
      );
    }
  }
}

const backend = arg('backend') ?? 'sqlite';
if (backend !== 'sqlite' && backend !== 'pglite') throw new Error(`--backend must be sqlite or pglite (got ${backend})`);
const pglite = backend === 'pglite' ? await startPgliteServer() : null;
if (pglite) {
  // the extensions in public, where the migrations expect them; one connection (PGlite is one session)
  await pglite.query('CREATE EXTENSION IF NOT EXISTS vector; CREATE EXTENSION IF NOT EXISTS unaccent');
  process.env.ATELIER_DATABASE_URL = pglite.url;
  process.env.ATELIER_DATABASE_POOL_MAX = '1';
  process.stdout.write(`backend: PostgreSQL (PGlite with pgvector) at ${pglite.url}\n`);
}
const t0 = performance.now();
if (sets.includes('curated') || sets.includes('products')) {
  const srv = await startTestServer({ env });
  try {
    const demo = await seedDemo(srv.app, { imagesDir: IMAGES });
    if (demo.failed.length) throw new Error(`demo seed failed: ${demo.failed.join('; ')}`);
    await waitForEnrichment(srv, { tenantId: demo.tenant_id, workspaceId: demo.workspace_id });
    await srv.app.catalog.deps.indexer.embedPending(null);
    if (!demo.api_key) throw new Error('seed-demo created no API key on a fresh data dir');
    const c = await srv.connect(demo.api_key);
    if (sets.includes('curated')) {
      const q = loadQueries(assetQueries);
      for (const mode of ['all', 'semantic']) record('curated', mode, await runAssets(c, demo.theme_id, mode, q));
    }
    if (sets.includes('products')) {
      const q = loadQueries(productQueries);
      for (const mode of ['hybrid', 'lexical', 'semantic']) record('products', mode, await runProducts(c, demo.store_id, mode, q));
    }
  } finally {
    await srv.close();
  }
}
/**
 * Import every demo file under `nameOf(file, i)` with no typed metadata and run the asset queries.
 * @returns nothing; records `set` / all and semantic
 */
async function runUntyped(set: string, nameOf: (file: string, i: number) => string): Promise<void> {
  const srv = await startTestServer({ env });
  try {
    const c = await srv.connect();
    const keys = new Map<string, string>();
    for (const [i, file] of listImageFiles(IMAGES).entries()) {
      const name = nameOf(file, i);
      keys.set(name.replace(/\.[^.]+$/, '').toLowerCase(), assetKey(path.basename(file)));
      const r = await c.call('svc_asset_import', 'import', {
        data: fs.readFileSync(file).toString('base64'),
        mime_type: MIME[path.extname(file).slice(1).toLowerCase()],
        filename: name,
      });
      if (r.isError) throw new Error(`import ${name} failed: ${JSON.stringify(r.error)}`);
    }
    await waitForEnrichment(srv, { tenantId: srv.tenant.tenant_id, workspaceId: srv.tenant.workspace_id });
    const keyOf = (name: string): string => keys.get(name.replace(/\.[^.]+$/, '').toLowerCase()) ?? `?${name}`;
    const q = loadQueries(assetQueries);
    for (const mode of ['all', 'semantic']) record(set, mode, await runAssets(c, srv.tenant.theme_id, mode, q, keyOf));
  } finally {
    await srv.close();
  }
}
if (sets.includes('filenames')) await runUntyped('filenames', (file) => path.basename(file));
if (sets.includes('neutral')) {
  // camera numbers in an order unrelated to the folders (a fixed multiplicative shuffle), so no rank follows import order
  const n = listImageFiles(IMAGES).length;
  await runUntyped('neutral', (file, i) => `IMG_${String(((i * 7) % n) + 1).padStart(4, '0')}${path.extname(file).toLowerCase()}`);
}

// ── report ──
const f3 = (x: number): string => x.toFixed(3);
const compareLabel = arg('compare');
/** A saved run, scored again from its stored runs with this version's metrics (older files lack some). */
const rescored = (r: ModeResult): ModeResult => {
  const scores = scoreRun(r.runs);
  const half = (h: Half) => summarize(scores.filter((x) => halfOf(x.q) === h));
  return { ...r, scores, summary: summarize(scores), halves: { dev: half('dev'), 'held-out': half('held-out') } };
};
const before = compareLabel
  ? (JSON.parse(fs.readFileSync(path.join(here, 'results', `${compareLabel}.json`), 'utf8')) as { results: ModeResult[] }).results.map(
      rescored,
    )
  : null;
const delta = (set: string, mode: string, pick: (s: Summary) => number, now: number): string => {
  const b = before?.find((r) => r.set === set && r.mode === mode);
  if (!b) return '';
  const d = now - pick(b.summary);
  return ` (${d >= 0 ? '+' : ''}${d.toFixed(3)})`;
};
process.stdout.write(
  `\n| set | mode | match queries | nDCG@10 | recall@3 | hit@3 | unrelated@10 | no-match queries with results |\n|---|---|---|---|---|---|---|---|\n`,
);
for (const r of results) {
  const s = r.summary;
  process.stdout.write(
    `| ${r.set} | ${r.mode} | ${s.queries} | ${f3(s.ndcg10)}${delta(r.set, r.mode, (x) => x.ndcg10, s.ndcg10)} | ${f3(s.recall3)}${delta(r.set, r.mode, (x) => x.recall3, s.recall3)} | ${f3(s.hit3)} | ${s.unrelated10.toFixed(2)}${delta(r.set, r.mode, (x) => x.unrelated10, s.unrelated10)} | ${s.falsePositives}/${s.noMatchQueries} |\n`,
  );
}
process.stdout.write(
  `\nErrors in both directions, per half (dev = development, tuned on; held-out = never tuned on). FP = results judged 0 (pages of 10) + no-match queries answered; FN = match queries answered with nothing + relevant items missing from the page\n\n| set | mode | half | match queries | nDCG@10 | FP results | no-match answered | FN empty answers | FN relevant missing |\n|---|---|---|---|---|---|---|---|---|\n`,
);
for (const r of results)
  for (const h of ['dev', 'held-out', 'all'] as const) {
    const s = h === 'all' ? r.summary : r.halves[h];
    const pick = (x: ModeResult) => (h === 'all' ? x.summary : x.halves[h]);
    const b = before?.find((x) => x.set === r.set && x.mode === r.mode);
    const bs = b ? pick(b) : null;
    const d = (now: number, was: number | undefined, digits: number) =>
      was === undefined ? '' : ` (${now - was >= 0 ? '+' : ''}${(now - was).toFixed(digits)})`;
    process.stdout.write(
      `| ${r.set} | ${r.mode} | ${h} | ${s.queries} | ${f3(s.ndcg10)}${d(s.ndcg10, bs?.ndcg10, 3)} | ${s.fpResults}${d(s.fpResults, bs?.fpResults, 0)} | ${s.falsePositives}/${s.noMatchQueries} | ${s.emptyAnswers}/${s.queries} | ${s.fnMissing}${d(s.fnMissing, bs?.fnMissing, 0)} |\n`,
    );
  }
const types = [...new Set(results.flatMap((r) => Object.keys(r.summary.byType)))];
process.stdout.write(
  `\nnDCG@10 by query type (no_match: share answered with nothing)\n\n| set | mode | ${types.join(' | ')} |\n|${'---|'.repeat(types.length + 2)}\n`,
);
for (const r of results)
  process.stdout.write(
    `| ${r.set} | ${r.mode} | ${types.map((t) => (r.summary.byType[t] ? f3(r.summary.byType[t].ndcg10) : '—')).join(' | ')} |\n`,
  );
const hybrid = results.find((r) => r.set === 'products' && r.mode === 'hybrid');
const lexical = results.find((r) => r.set === 'products' && r.mode === 'lexical');
if (hybrid && lexical) {
  const worse = hybrid.scores.filter((s, i) => !s.noMatch && s.ndcg10 < lexical.scores[i]!.ndcg10 - 0.1);
  process.stdout.write(
    `\nproducts: hybrid worse than lexical by > 0.10 nDCG@10 on ${worse.length} quer${worse.length === 1 ? 'y' : 'ies'}${worse.length ? `: ${worse.map((s) => JSON.stringify(s.q)).join(', ')}` : ''}\n`,
  );
  const typos = hybrid.scores.filter((s) => s.type === 'typo');
  process.stdout.write(
    `products: typo queries with a relevant product in the top 3 (hybrid): ${typos.filter((s) => s.hit3 === 1).length}/${typos.length}\n`,
  );
}
const label = arg('save');
if (label) {
  fs.mkdirSync(path.join(here, 'results'), { recursive: true });
  fs.writeFileSync(
    path.join(here, 'results', `${label}.json`),
    `${JSON.stringify({ label, at: new Date().toISOString(), ocr: env.ATELIER_OCR === '1', results }, null, 1)}\n`,
  );
  process.stdout.write(`\nsaved eval/results/${label}.json\n`);
}
process.stdout.write(`(eval took ${((performance.now() - t0) / 1000).toFixed(1)} s)\n`);
await pglite?.stop();
