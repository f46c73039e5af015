import type { Database } from 'better-sqlite3';
import type { SpacePurpose } from '../db/ports/vector-store.ts';
import { refreshAssetVectors } from '../db/postgres/asset-lexicon.ts';
import { inTransaction, type PgClient, type PgPool } from '../db/postgres/pool.ts';
import { productLexicalVector } from '../db/postgres/product-lexicon.ts';
import type { Stores } from '../stores.ts';
import { sha256Hex, type BlobStore } from '../storage/blob-store.ts';
import type { TestHooks } from '../test-hooks.ts';

/**
 * The copy behind `atelier migrate-backend` (server/cli/migrate-backend.ts): the rows of a SQLite data
 * dir into an empty PostgreSQL schema, the blobs they reference into another blob store, the asset
 * vectors through the vector ports, then a verification of counts and hashes.
 *
 * Rows are read from the SQLite tables directly (our own schema) and written with SQL, not through the
 * PostgreSQL ports: the ports allocate seqs and ids (asset and product seqs, ledger and job ids) that
 * cursors, CDN URLs, renditions, embeddings and memberships reference, and cannot be told to keep them.
 * Each table goes over in batches of BATCH rows as `json_populate_recordset` of the target table's row
 * type (PostgreSQL converts the SQLite values: ISO text to timestamptz, JSON arrays to real[]), all
 * tables in ONE transaction: a failed copy leaves the target's tables empty. Serial columns are then
 * moved past the copied values (`setval`), the asset seq past SQLite's high-water mark too, so a new
 * asset never reuses the seq of a deleted one. Columns are those both tables have; PostgreSQL-only
 * columns are derived here (`products.lexical_vector`, `product_embeddings.nonzero`) or by the
 * application (`assets.lexical_vector` is written here with the asset store's own function).
 *
 * Not copied: open uploads and their chunks, pickers, credit holds (transient: they expire within hours
 * and a client starts them again), the search change log (the target's triggers start their own), the
 * FTS5 and vec0 tables (the target's lexicon is derived from the rows; vectors go through the ports).
 */

/** Rows per INSERT statement. */
const BATCH = 500;

/** One copied table: how to read it from SQLite, and its serial column (moved past the copied values). */
interface TableSpec {
  name: string;
  /** ORDER BY of the source read (stable batches) */
  order: string;
  serial?: string;
  /** GENERATED ALWAYS identity: the insert needs OVERRIDING SYSTEM VALUE */
  identity?: boolean;
  /** extra or replaced values of a row (PostgreSQL-only columns), with the columns they fill */
  derive?: (src: Database, row: Record<string, unknown>) => Record<string, unknown>;
  derived?: string[];
}

/** The tables copied, parents before children (foreign keys are checked per statement). */
export const COPIED_TABLES: readonly TableSpec[] = [
  { name: 'settings', order: 'key' },
  { name: 'tenants', order: 'id' },
  { name: 'workspaces', order: 'id' },
  { name: 'themes', order: 'id' },
  { name: 'stores', order: 'id' },
  { name: 'api_keys', order: 'id' },
  { name: 'api_key_workspaces', order: 'api_key_id, workspace_id' },
  { name: 'assets', order: 'seq', serial: 'seq' },
  { name: 'asset_renditions', order: 'asset_seq, role, width' },
  { name: 'asset_enrichment', order: 'asset_seq' },
  { name: 'search_synonyms', order: 'id' },
  { name: 'vector_calibrations', order: 'space, scope_id' },
  { name: 'products', order: 'seq', serial: 'seq', derive: productLexicon, derived: ['lexical_vector'] },
  { name: 'product_variants', order: 'product_seq, position' },
  { name: 'product_images', order: 'product_seq, position' },
  { name: 'collections', order: 'store_id, handle' },
  { name: 'collection_products', order: 'store_id, handle, product_seq' },
  { name: 'product_embeddings', order: 'product_seq, model_id', derive: embeddingArray, derived: ['embedding', 'nonzero'] },
  { name: 'catalog_sync_state', order: 'store_id' },
  { name: 'credit_budgets', order: 'workspace_id' },
  { name: 'credit_ledger', order: 'id', serial: 'id', identity: true },
  { name: 'enrichment_jobs', order: 'id', serial: 'id', identity: true },
];

/** Transient tables: not copied, but a target holding rows in them is not empty either. */
export const TRANSIENT_TABLES = ['uploads', 'upload_chunks', 'pickers', 'credit_holds'] as const;

/** SQLite's asset seq high-water mark (server/db/sqlite/assets.ts): seqs of deleted assets are never reused. */
const SEQ_HIGH_WATER = 'asset_seq_high_water';

/** `products.lexical_vector` from the row and its variants, as postgres/products.ts derives it on write. */
function productLexicon(src: Database, row: Record<string, unknown>): Record<string, unknown> {
  const variants = src.prepare('SELECT title, sku FROM product_variants WHERE product_seq = ? ORDER BY position').all(row.seq) as {
    title: string;
    sku: string;
  }[];
  const tags = JSON.parse(row.tags as string) as string[];
  return {
    lexical_vector: productLexicalVector({
      title: row.title as string,
      handle: row.handle as string,
      vendor: row.vendor as string,
      product_type: row.product_type as string,
      tags: tags.join(' '),
      description: row.description_text as string,
      variants: variants.map((v) => `${v.title === 'Default Title' ? '' : v.title} ${v.sku}`).join(' '),
    }),
  };
}

/** A float32 BLOB embedding as a JSON array for `real[]`, and whether it has a direction (`nonzero`). */
function embeddingArray(_src: Database, row: Record<string, unknown>): Record<string, unknown> {
  const b = row.embedding as Buffer;
  const v = Array.from(new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)));
  return { embedding: v, nonzero: v.some((x) => x !== 0) };
}

/** Tables of the target (of the connection's first search_path schema) holding rows, with their counts. */
export async function nonEmptyTargetTables(pool: PgPool): Promise<{ table: string; rows: number }[]> {
  const out: { table: string; rows: number }[] = [];
  for (const t of [...COPIED_TABLES.map((s) => s.name), ...TRANSIENT_TABLES]) {
    const n = Number((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${t}`)).rows[0]!.n);
    if (n > 0) out.push({ table: t, rows: n });
  }
  return out;
}

/** Every blob key the source rows reference (originals and renditions), sorted. */
export function referencedBlobs(src: Database): string[] {
  return (src.prepare('SELECT sha256 FROM assets UNION SELECT sha256 FROM asset_renditions ORDER BY 1').all() as { sha256: string }[]).map(
    (r) => r.sha256,
  );
}

/** Outcome of the blob copy: keys copied and verified, and the failures (missing, wrong hash, write error). */
export interface BlobCopy {
  referenced: number;
  copied: number;
  bytes: number;
  failures: { sha256: string; problem: string }[];
}

/**
 * Copy each blob from `from` to `to` and read it back: the copy counts only when the bytes read back
 * from the target hash to the key. A source blob that is missing or does not hash to its key is a
 * failure (it would be a broken asset on the target too).
 */
export async function copyBlobs(keys: string[], from: BlobStore, to: BlobStore, onBlob?: (done: number) => void): Promise<BlobCopy> {
  const out: BlobCopy = { referenced: keys.length, copied: 0, bytes: 0, failures: [] };
  for (const [i, sha] of keys.entries()) {
    try {
      const bytes = await from.get(sha).catch((e: NodeJS.ErrnoException) => {
        throw new Error(e.code === 'ENOENT' ? `missing in the source store ${from.location}` : e.message);
      });
      if (sha256Hex(bytes) !== sha) throw new Error(`source bytes hash to ${sha256Hex(bytes)}`);
      await to.put(bytes);
      const back = sha256Hex(await to.get(sha));
      if (back !== sha) throw new Error(`read back from the target they hash to ${back}`);
      out.copied++;
      out.bytes += bytes.length;
    } catch (e) {
      out.failures.push({ sha256: sha, problem: (e as Error).message });
    }
    onBlob?.(i + 1);
  }
  return out;
}

/** Columns of a table on each side. */
async function commonColumns(src: Database, c: PgClient, table: string): Promise<string[]> {
  const mine = new Set((src.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((r) => r.name));
  const theirs = (
    await c.query<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
      [table],
    )
  ).rows.map((r) => r.column_name);
  if (theirs.length === 0) throw new Error(`the target has no table ${table} (were its migrations applied?)`);
  return theirs.filter((col) => mine.has(col));
}

/**
 * Copy every row of COPIED_TABLES in one transaction on `pool` (whose connections use the target
 * schema), then move the serial columns past the copied values and write the assets' lexical vectors.
 * @returns rows written per table
 * @throws the driver's error (nothing is committed then)
 */
export async function copyRows(
  src: Database,
  pool: PgPool,
  onTable?: (table: string, rows: number) => void,
): Promise<Record<string, number>> {
  return inTransaction(pool, async (c) => {
    const written: Record<string, number> = {};
    for (const t of COPIED_TABLES) {
      const cols = await commonColumns(src, c, t.name);
      const all = [...new Set([...cols, ...(t.derived ?? [])])];
      const list = all.map((col) => `"${col}"`).join(', ');
      const sql = `INSERT INTO ${t.name} (${list}) ${t.identity ? 'OVERRIDING SYSTEM VALUE ' : ''}
        SELECT ${list} FROM json_populate_recordset(NULL::${t.name}, $1::json)`;
      let n = 0;
      let batch: Record<string, unknown>[] = [];
      const flush = async (): Promise<void> => {
        if (batch.length === 0) return;
        await c.query(sql, [JSON.stringify(batch)]);
        n += batch.length;
        batch = [];
      };
      for (const row of src.prepare(`SELECT ${cols.map((col) => `"${col}"`).join(', ')} FROM ${t.name} ORDER BY ${t.order}`).iterate()) {
        const r = row as Record<string, unknown>;
        batch.push(t.derive ? { ...r, ...t.derive(src, r) } : r);
        if (batch.length >= BATCH) await flush();
      }
      await flush();
      if (t.serial) {
        const floor = t.name === 'assets' ? highWater(src) : 0;
        await c.query(
          `SELECT setval(pg_get_serial_sequence($1, $2), m) FROM (SELECT GREATEST(max(${t.serial}), $3) AS m FROM ${t.name}) x WHERE m > 0`,
          [t.name, t.serial, floor],
        );
      }
      if (t.name === 'assets') {
        const seqs = (src.prepare('SELECT seq FROM assets ORDER BY seq').all() as { seq: number }[]).map((r) => r.seq);
        for (let i = 0; i < seqs.length; i += BATCH) await refreshAssetVectors(c, seqs.slice(i, i + BATCH));
      }
      written[t.name] = n;
      onTable?.(t.name, n);
    }
    return written;
  });
}

function highWater(src: Database): number {
  const r = src.prepare('SELECT value FROM settings WHERE key = ?').get(SEQ_HIGH_WATER) as { value: string } | undefined;
  return r ? Number.parseInt(r.value, 10) || 0 : 0;
}

/** Vectors of one space: read from the source, written to the target (`null` target: skipped). */
export interface SpaceCopy {
  purpose: SpacePurpose;
  model_id: string;
  dimensions: number;
  source: number;
  target: number;
}

/**
 * Copy the asset vectors of every live space through the vector ports (the target creates its own
 * space tables and ids; nothing references a space id but its vectors). Run after `copyRows`: a vector
 * is written only for an asset the target holds. Each target space is created `building` and becomes
 * `ready` (when the source's was) only once its count matches the source's, so a run killed midway leaves
 * a space that a server started on the target backfills, never a `ready` one missing vectors.
 * @param hooks TEST ONLY pause point `migrate-vectors` (the target space created, no vector copied yet)
 * @returns per space the vectors read from the source and counted in the target afterwards
 */
export async function copyVectors(src: Database, from: Stores, to: Stores, hooks?: TestHooks): Promise<SpaceCopy[]> {
  const assets = src.prepare('SELECT seq, tenant_id, workspace_id FROM assets ORDER BY seq').all() as {
    seq: number;
    tenant_id: string;
    workspace_id: string;
  }[];
  const scopes = new Map<string, { tenantId: string; workspaceId: string }>();
  for (const a of assets) scopes.set(a.workspace_id, { tenantId: a.tenant_id, workspaceId: a.workspace_id });
  const out: SpaceCopy[] = [];
  for (const purpose of ['asset_text', 'asset_visual'] as const) {
    for (const space of await from.vectors.liveSpaces(purpose)) {
      const target = await to.vectors.ensureSpace(purpose, space.model_id, space.dimensions, 'building');
      await hooks?.pause('migrate-vectors');
      let read = 0;
      for (const a of assets) {
        const scope = scopes.get(a.workspace_id)!;
        const v = await from.vectors.get(scope, space, a.seq);
        if (!v) continue;
        read++;
        await to.vectors.put(scope, target, a.seq, v);
      }
      let counted = 0;
      for (const scope of scopes.values()) counted += await to.vectors.count(scope, target);
      if (space.status === 'ready' && counted === read) await to.vectors.setStatus(target, 'ready');
      out.push({ purpose, model_id: space.model_id, dimensions: space.dimensions, source: read, target: counted });
    }
  }
  return out;
}

/** Per table: rows in the source and in the target. */
export async function countBoth(src: Database, pool: PgPool): Promise<{ table: string; source: number; target: number }[]> {
  const out: { table: string; source: number; target: number }[] = [];
  for (const t of COPIED_TABLES) {
    const source = (src.prepare(`SELECT count(*) AS n FROM ${t.name}`).get() as { n: number }).n;
    const target = Number((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${t.name}`)).rows[0]!.n);
    out.push({ table: t.name, source, target });
  }
  return out;
}

/**
 * Whether the target's rows keep the source's identities: the same (seq, id, sha256) of every asset and
 * (seq, store, gid) of every product, compared as one sha256 over the sorted keys of each side.
 */
export async function identitiesMatch(src: Database, pool: PgPool): Promise<{ assets: boolean; products: boolean }> {
  const digest = (rows: string[]): string => sha256Hex(Buffer.from(rows.join('\n')));
  const srcAssets = (
    src.prepare('SELECT seq, id, sha256 FROM assets ORDER BY seq').all() as { seq: number; id: string; sha256: string }[]
  ).map((r) => `${r.seq} ${r.id} ${r.sha256}`);
  const pgAssets = (await pool.query<{ k: string }>(`SELECT seq || ' ' || id || ' ' || sha256 AS k FROM assets ORDER BY seq`)).rows.map(
    (r) => r.k,
  );
  const srcProducts = (
    src.prepare('SELECT seq, store_id, gid FROM products ORDER BY seq').all() as { seq: number; store_id: string; gid: string }[]
  ).map((r) => `${r.seq} ${r.store_id} ${r.gid}`);
  const pgProducts = (
    await pool.query<{ k: string }>(`SELECT seq || ' ' || store_id || ' ' || gid AS k FROM products ORDER BY seq`)
  ).rows.map((r) => r.k);
  return { assets: digest(srcAssets) === digest(pgAssets), products: digest(srcProducts) === digest(pgProducts) };
}

/** Blob keys the TARGET rows reference that its blob store lacks (presence checked with `stat`). */
export async function missingTargetBlobs(pool: PgPool, to: BlobStore): Promise<string[]> {
  const keys = (await pool.query<{ sha256: string }>('SELECT sha256 FROM assets UNION SELECT sha256 FROM asset_renditions ORDER BY 1'))
    .rows;
  const missing: string[] = [];
  for (const { sha256 } of keys) if (!(await to.stat(sha256))) missing.push(sha256);
  return missing;
}
