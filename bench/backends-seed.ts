/**
 * Seeding for bench/backends.bench.ts: one synthetic library (rows and their text vectors) written into
 * an app's stores, the same rows on every backend.
 *
 * SQLite goes through the ports (`AssetStore.insert`, `VectorStore.put`), one call per asset. PostgreSQL
 * goes through bulk SQL, 1,000 rows a statement: the ports have no batch form, and one `insert` per asset
 * (its own transaction, which first locks the workspace row so seqs follow commit order) ran at ≈ 330
 * assets/s on the machine's PostgreSQL 15 with 4 connections and ≈ 270 assets/s + 200 vectors/s on PGlite
 * (one connection): 5 and 15 minutes at 100k. The bulk rows carry what the port's `insert` writes: the
 * same columns, and the `lexical_vector` from the same function (asset-lexicon.ts `assetLexicalVector`);
 * the triggers of the migrations fill `asset_terms`, `asset_counts` and `search_changes` as for any
 * insert. Vectors go into the space's table (`asset_vectors_<space id>`, vector-store.ts) created by the
 * port's `ensureSpace`; the HNSW index is dropped while loading and rebuilt from its own definition after
 * (pgvector builds a graph in bulk far faster than it grows one insert at a time). VACUUM ANALYZE ends
 * the load, as autovacuum would on a server that has been running (without the VACUUM the visibility map
 * is empty, and a count(*) over the workspace reads every heap page instead of the index alone).
 */
import type { NewAsset } from '../server/db/ports/asset-store.ts';
import { assetLexicalVector } from '../server/db/postgres/asset-lexicon.ts';
import type { PgPool } from '../server/db/postgres/pool.ts';
import type { SpaceRow } from '../server/db/ports/vector-store.ts';
import { syntheticAsset } from '../server/db/synthetic-asset.ts';
import type { Scope } from '../server/domain/scope.ts';
import type { Stores } from '../server/stores.ts';

/** One synthetic asset: 6 words of text (alt text; the first two are its name), its 100-d text vector, tag and category. */
export interface SeedItem {
  text: string;
  vector: Float32Array;
}

/** The row of asset `i` (stable id, sha `s<i>`): name from the first two words, every 5th tagged "featured", every 4th a background. */
export function seedAsset(i: number, scope: Scope, text: string, at: string): NewAsset {
  const two = text.split(' ').slice(0, 2);
  return syntheticAsset(
    i,
    { tenant_id: scope.tenantId, workspace_id: scope.workspaceId },
    {
      format: 'jpeg',
      mime_type: 'image/jpeg',
      width: 800,
      height: 600,
      size_bytes: 1000,
      name: `${two.join('-')}-${i}.jpg`,
      name_words: two.join(' '),
      alt_text: text,
      tags: i % 5 === 0 ? ['featured'] : [],
      category: i % 4 === 0 ? 'background' : null,
      created_at: at,
    },
  );
}

/**
 * Write items `from`..`items.length − 1` through the ports, one call each (SQLite).
 * @returns seconds spent on rows and on vectors
 */
export async function seedThroughPorts(
  stores: Stores,
  scope: Scope,
  space: SpaceRow,
  items: SeedItem[],
  from: number,
): Promise<{ rowsS: number; vectorsS: number }> {
  const at = new Date().toISOString();
  let t0 = performance.now();
  const seqs: number[] = [];
  for (let i = from; i < items.length; i++) seqs.push(await stores.assets.insert(seedAsset(i, scope, items[i]!.text, at)));
  const rowsS = (performance.now() - t0) / 1000;
  t0 = performance.now();
  for (let j = 0; j < seqs.length; j++) await stores.vectors.put(scope, space, seqs[j]!, items[from + j]!.vector);
  return { rowsS, vectorsS: (performance.now() - t0) / 1000 };
}

const BATCH = 1000;
/** The asset columns the port's insert writes (postgres/assets.ts), minus the computed `lexical_vector`. */
const COLUMNS = [
  'id',
  'tenant_id',
  'workspace_id',
  'kind',
  'format',
  'mime_type',
  'width',
  'height',
  'size_bytes',
  'sha256',
  'source_sha256',
  'converted_from',
  'name',
  'name_words',
  'alt_text',
  'tags',
  'purpose',
  'category',
  'subtype',
  'user_fields',
  'source',
  'source_url',
  'provenance',
  'enrichment_status',
  'created_at',
] as const;

/**
 * Write items `from`..`items.length − 1` by bulk SQL (PostgreSQL), vectors only when `space` is given.
 * @returns seconds spent on rows and on vectors (the index rebuild included)
 */
export async function seedBulkPg(
  pool: PgPool,
  scope: Scope,
  space: SpaceRow | null,
  items: SeedItem[],
  from: number,
): Promise<{ rowsS: number; vectorsS: number }> {
  const at = new Date().toISOString();
  let t0 = performance.now();
  const seqs: number[] = [];
  for (let i = from; i < items.length; i += BATCH) {
    const rows = [];
    for (let k = i; k < Math.min(items.length, i + BATCH); k++) {
      const a = seedAsset(k, scope, items[k]!.text, at);
      const json = { ...a, tags: JSON.stringify(a.tags), user_fields: JSON.stringify(a.user_fields) };
      rows.push({ ...json, lexical_vector: assetLexicalVector({ ...a, auto_tags: [], ocr_text: null }) });
    }
    // json_populate_recordset reads each field with its column's type (text to tsvector, timestamptz, …)
    const r = await pool.query<{ seq: number }>(
      `INSERT INTO assets (${COLUMNS.join(', ')}, lexical_vector)
       SELECT ${COLUMNS.join(', ')}, lexical_vector FROM json_populate_recordset(NULL::assets, $1::json) ORDER BY id
       RETURNING seq`,
      [JSON.stringify(rows)],
    );
    seqs.push(...r.rows.map((x) => x.seq).sort((a, b) => a - b));
  }
  const rowsS = (performance.now() - t0) / 1000;
  if (!space) {
    await pool.query('VACUUM ANALYZE');
    return { rowsS, vectorsS: 0 };
  }
  t0 = performance.now();
  const table = `asset_vectors_${Number(space.id)}`;
  const index = (
    await pool.query<{ name: string; def: string }>(
      `SELECT indexname AS name, indexdef AS def FROM pg_indexes WHERE tablename = $1 AND indexdef LIKE '%USING hnsw%'`,
      [table],
    )
  ).rows;
  for (const ix of index) await pool.query(`DROP INDEX ${ix.name}`);
  for (let j = 0; j < seqs.length; j += BATCH) {
    const part = seqs.slice(j, j + BATCH);
    await pool.query(
      `INSERT INTO ${table} (asset_seq, workspace_id, embedding)
       SELECT v.seq, $1, v.e::public.vector FROM unnest($2::bigint[], $3::text[]) AS v (seq, e)`,
      [scope.workspaceId, part, part.map((_, k) => `[${Array.from(items[from + j + k]!.vector).join(',')}]`)],
    );
  }
  // pgvector builds the graph in memory while it fits in maintenance_work_mem (default 64 MB) and much
  // slower once it does not: on PGlite, 100,000 × 100-d took 85 s with 1 GB and ran past 150 s with the
  // default (https://github.com/pgvector/pgvector#index-build-time). A pool connection is one session:
  // SET and the build must share it.
  const client = await pool.connect();
  try {
    await client.query(`SET maintenance_work_mem = '1GB'`);
    for (const ix of index) await client.query(ix.def);
    await client.query('RESET maintenance_work_mem');
  } finally {
    client.release();
  }
  await pool.query('VACUUM ANALYZE');
  return { rowsS, vectorsS: (performance.now() - t0) / 1000 };
}
