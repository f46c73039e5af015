/**
 * pgvector KNN on the PostgreSQL `VectorStore`: exact scan of a workspace's rows vs the HNSW index
 * (cosine, m 16, ef_construction 64, iterative strict-order scan), interleaved per query, for a small
 * and a large workspace of one space, unfiltered and with a category filter passing 10 % of assets.
 * Reports p50/p95 latency of `nearest` (k 24) and HNSW recall@24 against the exact answer. Runs on
 * PGlite (pgvector in WebAssembly, server/db/contract/pglite-server.ts), the only pgvector on these
 * machines: absolute figures are WebAssembly's, not a native server's; the ratio between the two plans
 * and the recall are what this measures. Vectors are clustered (64 centres + noise), like embeddings.
 * The "HNSW" column is the store with exactScanMax 0: the planner may still pick the workspace's rows
 * and a sort when the workspace is a small share of the table (the plans are printed for the large one).
 * `BENCH_PG_VECTORS_LARGE` sets the large workspace's size (default 20,000; seeding it takes minutes).
 */
import { createPgVectorStore } from '../server/db/postgres/vector-store.ts';
import { startPgliteServer } from '../server/db/contract/pglite-server.ts';
import { percentile, table } from './stats.ts';
import { mulberry32 } from './random.ts';

const DIMS = 96;
const SIZES = { small: 2_000, large: Number(process.env.BENCH_PG_VECTORS_LARGE ?? 20_000) };
const QUERIES = 30;
const K = 24;

const rand = mulberry32(42);
const gauss = (): number => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
const centres = Array.from({ length: 64 }, () => Float32Array.from({ length: DIMS }, gauss));
const point = (): Float32Array => {
  const c = centres[Math.floor(rand() * centres.length)]!;
  return c.map((x) => x + 0.6 * gauss());
};
const literal = (v: Float32Array): string => `[${Array.from(v).join(',')}]`;

export default async function run(): Promise<void> {
  const server = await startPgliteServer();
  const schema = await server.schema();
  const pool = schema.pool();
  try {
    await pool.query(`INSERT INTO tenants (id, name, created_at) VALUES ('t', 't', now())`);
    await pool.query(
      `INSERT INTO workspaces (id, tenant_id, name, created_at) VALUES ('small', 't', 's', now()), ('large', 't', 'l', now())`,
    );
    const exact = createPgVectorStore(pool, { exactScanMax: Number.MAX_SAFE_INTEGER });
    const hnsw = createPgVectorStore(pool, { exactScanMax: 0 });
    const space = await exact.ensureSpace('asset_text', 'bench', DIMS, 'ready');
    const t0 = performance.now();
    for (const [ws, n] of Object.entries(SIZES)) {
      for (let i = 0; i < n; i += 500) {
        const m = Math.min(500, n - i);
        const vs = Array.from({ length: m }, () => literal(point()));
        const cats = Array.from({ length: m }, (_, j) => ((i + j) % 10 === 0 ? 'banner' : 'photo'));
        await pool.query(
          `WITH a AS (
             INSERT INTO assets (id, tenant_id, workspace_id, kind, format, mime_type, width, height, size_bytes, sha256, source_sha256,
               name, category, source, created_at)
             SELECT gen_random_uuid()::text, 't', $1, 'image', 'jpeg', 'image/jpeg', 1000, 800, 1, md5(random()::text), md5(random()::text),
               'x.jpg', c, 'bench', now()
             FROM unnest($2::text[]) WITH ORDINALITY u (c, o) ORDER BY o RETURNING seq, workspace_id)
           INSERT INTO asset_vectors_${space.id} (asset_seq, workspace_id, embedding)
           SELECT a.seq, a.workspace_id, v.e::public.vector FROM (SELECT seq, workspace_id, row_number() OVER (ORDER BY seq) r FROM a) a
           JOIN unnest($3::text[]) WITH ORDINALITY v (e, o) ON v.o = a.r`,
          [ws, cats, vs],
        );
      }
    }
    await pool.query(`ANALYZE`);
    process.stdout.write(
      `seeded ${SIZES.small} + ${SIZES.large} vectors of ${DIMS} dims (HNSW built while inserting) in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
    );
    // which plan each form gets on the large workspace (the store's query, simplified to its ORDER BY)
    const q = literal(point());
    for (const [form, order] of [
      ['exact', `(v.embedding OPERATOR(public.<=>) $1::public.vector) + 0, v.asset_seq`],
      ['HNSW', `v.embedding OPERATOR(public.<=>) $1::public.vector`],
    ] as const) {
      const plan = await pool.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN SELECT v.asset_seq FROM asset_vectors_${space.id} v JOIN assets a ON a.seq = v.asset_seq
         WHERE v.workspace_id = 'large' AND a.tenant_id = 't' AND a.workspace_id = 'large' ORDER BY ${order} LIMIT ${K}`,
        [q],
      );
      const uses = plan.rows
        .map((r) => r['QUERY PLAN'])
        .filter((l) => /Scan/.test(l))
        .map((l) => l.trim().replace(/\s+\(cost.*$/, ''));
      process.stdout.write(`plan ${form}: ${uses.join('; ')}\n`);
    }
    const rows: (string | number)[][] = [];
    for (const ws of Object.keys(SIZES)) {
      for (const [label, filters] of [
        ['none', {}],
        ['category 10 %', { category: 'banner' }],
      ] as const) {
        const scope = { tenantId: 't', workspaceId: ws };
        const te: number[] = [];
        const th: number[] = [];
        let found = 0;
        for (let q = 0; q < QUERIES + 2; q++) {
          const query = point();
          let s = performance.now();
          const e = await exact.nearest(scope, space, query, K, filters);
          const de = performance.now() - s;
          s = performance.now();
          const h = await hnsw.nearest(scope, space, query, K, filters);
          const dh = performance.now() - s;
          if (q < 2) continue; // warm-up
          te.push(de);
          th.push(dh);
          const want = new Set(e.map((x) => x.seq));
          found += h.filter((x) => want.has(x.seq)).length / Math.max(1, e.length);
        }
        const f = (x: number): string => x.toFixed(1);
        rows.push([
          `${ws} (${SIZES[ws as keyof typeof SIZES]})`,
          label,
          f(percentile(te, 50)),
          f(percentile(te, 95)),
          f(percentile(th, 50)),
          f(percentile(th, 95)),
          (percentile(te, 50) / percentile(th, 50)).toFixed(2),
          (found / QUERIES).toFixed(3),
        ]);
      }
    }
    table(
      ['workspace (vectors)', 'filter', 'exact p50 ms', 'exact p95 ms', 'HNSW p50 ms', 'HNSW p95 ms', 'exact/HNSW p50', 'HNSW recall@24'],
      rows,
    );
  } finally {
    await schema.drop();
    await server.stop();
  }
}
