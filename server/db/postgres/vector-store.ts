import type { Scope } from '../../domain/scope.ts';
import {
  checkDimensions,
  VectorSpaceRetiredError,
  VectorStoreUnavailableError,
  type SpaceRow,
  type VectorAvailability,
  type VectorHit,
  type VectorStore,
} from '../ports/vector-store.ts';
import { pgAssetFilterSql } from './assets.ts';
import { inTransaction, isoOf, type PgPool } from './pool.ts';

/**
 * Partitions (a space's vectors of one workspace) up to this many rows are searched exactly (the
 * workspace's rows, then a sort on the cosine distance); larger ones through the HNSW index.
 * `npm run bench pg-vectors` (PGlite, 96 dimensions, k 24, load average ≈ 10 on 2 cores): exact p50
 * 32 ms at 2,000 vectors and 251 ms at 20,000 (≈ 12 µs a row); HNSW 62 ms at 20,000 with recall@24
 * 0.999: the two meet near 5,000. WebAssembly figures: on a native server both are faster, the
 * crossover is of the same order (a linear scan against a logarithmic walk plus fixed costs).
 */
export const EXACT_SCAN_MAX = 5_000;
/** pgvector indexes `vector` columns of at most 2,000 dimensions (HNSW and IVFFlat); wider spaces are always scanned exactly. */
const HNSW_MAX_DIMENSIONS = 2000;

type RawSpace = Omit<SpaceRow, 'created_at'> & { created_at: Date };
const toSpace = (r: RawSpace): SpaceRow => ({ ...r, created_at: isoOf(r.created_at)! });
const SPACE_COLUMNS = 'id, purpose, model_id, dimensions, status, created_at';

/** Whether `e` is PostgreSQL's undefined_table error (SQLSTATE 42P01): here, a space's table that `retire` dropped. */
const isUndefinedTable = (e: unknown): boolean => (e as { code?: unknown } | null)?.code === '42P01';

/** pgvector's text form of a vector: `[x,y,…]` (float32 values print exactly as JS numbers). */
const literal = (v: Float32Array): string => `[${Array.from(v).join(',')}]`;
const parse = (text: string): Float32Array => Float32Array.from(JSON.parse(text) as number[]);

/**
 * The PostgreSQL `VectorStore` on pgvector (https://github.com/pgvector/pgvector, 0.8). Spaces are rows
 * of `vector_spaces` (postgres/migrations/0005); each space's vectors live in a table of its own,
 * `asset_vectors_<id>` (asset_seq → assets ON DELETE CASCADE, workspace_id, `embedding vector(n)`),
 * created by `ensureSpace` and dropped by `retire`. A table per space rather than one table with a
 * per-space dimension check: an HNSW index needs a column of fixed dimensions (one table would need a
 * partial expression index per space, `(embedding::vector(n)) WHERE space_id = …`, and queries that
 * repeat that expression to use it), retiring a model is a DROP TABLE instead of deleting and vacuuming
 * millions of rows, and it is the layout of the SQLite side (one vec0 table per space).
 *
 * A retired space reads as empty (`count` 0, `get` null, `sample` and `nearest` none; `remove` does
 * nothing) and refuses `put` and `setStatus` with VectorSpaceRetiredError: a statement on its dropped
 * table fails with undefined_table, which is answered so once `vector_spaces` says the space is retired
 * (no extra query otherwise).
 *
 * `count` and the partition size `nearest` chooses by read `asset_vector_counts` (migration 0013): a
 * count row per space and workspace kept by statement triggers on each space's table (attached by
 * `ensureSpace`, deleted by `retire`), in the writing transactions, so a search never counts the
 * partition and every process reads the committed count.
 *
 * `nearest` is one SQL query joining `assets`, so scope and filters apply inside it: a partition of
 * at most `EXACT_SCAN_MAX` vectors is ranked exactly (the workspace's rows by index, then a sort on
 * the cosine distance); a larger one goes through the HNSW index (`vector_cosine_ops`) with pgvector
 * 0.8's iterative scan in strict order, so filtered-out rows do not shrink the result below `k` (and
 * when the walk's bound leaves it short of `k`, the exact scan answers instead).
 * The type and operators are qualified with the extension's schema, so connections whose search_path
 * lacks it (the test schemas) work. Every method but `available` throws `VectorStoreUnavailableError`
 * when the extension is missing. Not wired into the server yet (see pool.ts).
 * @param opts.exactScanMax largest partition searched exactly (default EXACT_SCAN_MAX; 0: always the index)
 */
export function createPgVectorStore(pool: PgPool, opts: { exactScanMax?: number } = {}): VectorStore {
  const exactScanMax = opts.exactScanMax ?? EXACT_SCAN_MAX;
  let schema: string | null = null;
  /** The schema holding the extension (quoted), looked up until found. */
  const extension = async (): Promise<string | null> => {
    if (schema === null) {
      const r = await pool.query<{ ns: string }>(
        'SELECT quote_ident(n.nspname) AS ns FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = $1',
        ['vector'],
      );
      schema = r.rows[0]?.ns ?? null;
    }
    return schema;
  };
  const availability = async (): Promise<VectorAvailability> => {
    if ((await extension()) !== null) return { ok: true };
    const r = await pool.query<{ db: string; offered: boolean }>(
      `SELECT current_database() AS db, EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') AS offered`,
    );
    const { db, offered } = r.rows[0]!;
    return {
      ok: false,
      reason: offered
        ? `the vector extension is not created in database "${db}": run CREATE EXTENSION vector SCHEMA public; as a superuser`
        : `the vector extension (pgvector) is not installed on the PostgreSQL server of database "${db}": install pgvector ` +
          `(https://github.com/pgvector/pgvector#installation), then run CREATE EXTENSION vector SCHEMA public; in that database as a superuser`,
    };
  };
  /** The extension's schema. @throws VectorStoreUnavailableError with the reason when it is missing */
  const ns = async (): Promise<string> => {
    const s = await extension();
    if (s !== null) return s;
    const a = await availability();
    throw new VectorStoreUnavailableError(a.ok ? 'the vector extension vanished' : a.reason);
  };
  const table = (space: SpaceRow): string => `asset_vectors_${Number(space.id)}`;
  /** ` FROM <table> v JOIN assets a` scoped to $1 tenant, $2 workspace. */
  const scoped = (space: SpaceRow): string =>
    `FROM ${table(space)} v JOIN assets a ON a.seq = v.asset_seq WHERE v.workspace_id = $2 AND a.tenant_id = $1 AND a.workspace_id = $2`;
  const scopeParams = (scope: Scope): unknown[] => [scope.tenantId, scope.workspaceId];
  /** Whether the space is live now (`space.status` is what it was when read). */
  const isLive = async (space: SpaceRow): Promise<boolean> =>
    ((await pool.query(`SELECT 1 FROM vector_spaces WHERE id = $1 AND status <> 'retired'`, [space.id])).rowCount ?? 0) > 0;
  /**
   * `read()`, or `empty` when the space is retired: `retire` dropped its table, so a statement on a
   * space retired since the caller looked it up fails with undefined_table; the status is read only then.
   */
  const unlessRetired = async <T>(space: SpaceRow, empty: T, read: () => Promise<T>): Promise<T> => {
    try {
      return await read();
    } catch (e) {
      if (isUndefinedTable(e) && !(await isLive(space))) return empty;
      throw e;
    }
  };

  return {
    available: availability,
    async liveSpaces(purpose) {
      await ns();
      const r = await pool.query<RawSpace>(
        `SELECT ${SPACE_COLUMNS} FROM vector_spaces WHERE purpose = $1 AND status <> 'retired' ORDER BY id`,
        [purpose],
      );
      return r.rows.map(toSpace);
    },
    async ensureSpace(purpose, modelId, dimensions, status) {
      if (!Number.isInteger(dimensions) || dimensions <= 0) throw new Error(`dimensions must be a positive integer, got ${dimensions}`);
      const x = await ns();
      return inTransaction(pool, async (c) => {
        // the upsert locks the space's row: a racing process waits here until the table below exists
        const r = await c.query<RawSpace>(
          `INSERT INTO vector_spaces (purpose, model_id, dimensions, status, created_at) VALUES ($1, $2, $3, $4, now())
           ON CONFLICT (purpose, model_id, dimensions) DO UPDATE
             SET status = CASE WHEN vector_spaces.status = 'retired' THEN excluded.status ELSE vector_spaces.status END
           RETURNING ${SPACE_COLUMNS}`,
          [purpose, modelId, dimensions, status],
        );
        const space = toSpace(r.rows[0]!);
        const t = table(space);
        await c.query(
          `CREATE TABLE IF NOT EXISTS ${t} (
             asset_seq    bigint PRIMARY KEY REFERENCES assets (seq) ON DELETE CASCADE,
             workspace_id text COLLATE "C" NOT NULL,
             embedding    ${x}.vector(${dimensions}) NOT NULL)`,
        );
        await c.query(`CREATE INDEX IF NOT EXISTS ${t}_workspace ON ${t} (workspace_id)`);
        // m = 16, ef_construction = 64: pgvector's defaults
        if (dimensions <= HNSW_MAX_DIMENSIONS)
          await c.query(`CREATE INDEX IF NOT EXISTS ${t}_hnsw ON ${t} USING hnsw (embedding ${x}.vector_cosine_ops)`);
        // the per-workspace vector counts (migration 0013), once per table
        await c.query('SELECT asset_vector_counts_attach($1)', [space.id]);
        return space;
      });
    },
    async setStatus(space, status) {
      await ns();
      const r = await pool.query(`UPDATE vector_spaces SET status = $1 WHERE id = $2 AND status <> 'retired'`, [status, space.id]);
      // a retired space has no table: only ensureSpace revives it
      if (r.rowCount === 0) throw new VectorSpaceRetiredError(space.id, `set status ${status}`);
    },
    async retire(space) {
      await ns();
      await inTransaction(pool, async (c) => {
        await c.query(`UPDATE vector_spaces SET status = 'retired' WHERE id = $1`, [space.id]);
        await c.query(`DROP TABLE IF EXISTS ${table(space)}`);
        await c.query('DELETE FROM asset_vector_counts WHERE space_id = $1', [space.id]);
      });
    },
    async put(scope, space, seq, vector) {
      checkDimensions(space, vector);
      const x = await ns();
      try {
        const r = await pool.query(
          `INSERT INTO ${table(space)} (asset_seq, workspace_id, embedding)
           SELECT a.seq, a.workspace_id, $4::${x}.vector FROM assets a WHERE a.seq = $3 AND a.tenant_id = $1 AND a.workspace_id = $2
           ON CONFLICT (asset_seq) DO UPDATE SET embedding = excluded.embedding`,
          [...scopeParams(scope), seq, literal(vector)],
        );
        return (r.rowCount ?? 0) > 0;
      } catch (e) {
        // the table is gone: retire committed first (a put that took the table's lock first delays the
        // DROP until it commits, and its vector goes with the table)
        if (isUndefinedTable(e) && !(await isLive(space))) throw new VectorSpaceRetiredError(space.id, `put asset ${seq}`);
        throw e;
      }
    },
    async get(scope, space, seq) {
      await ns();
      return unlessRetired(space, null, async () => {
        const r = await pool.query<{ e: string }>(`SELECT v.embedding::text AS e ${scoped(space)} AND v.asset_seq = $3`, [
          ...scopeParams(scope),
          seq,
        ]);
        return r.rows[0] ? parse(r.rows[0].e) : null;
      });
    },
    async remove(scope, space, seq) {
      await ns();
      await unlessRetired(space, undefined, async () => {
        await pool.query(
          `DELETE FROM ${table(space)} v USING assets a
           WHERE v.asset_seq = $3 AND a.seq = v.asset_seq AND a.tenant_id = $1 AND a.workspace_id = $2`,
          [...scopeParams(scope), seq],
        );
      });
    },
    async count(scope, space) {
      await ns();
      // the workspace's count row, if the workspace is the tenant's (a forged scope counts nothing)
      const r = await pool.query<{ n: number }>(
        `SELECT coalesce((SELECT c.vectors FROM asset_vector_counts c JOIN workspaces w ON w.id = c.workspace_id
           WHERE c.space_id = $3 AND c.workspace_id = $2 AND w.tenant_id = $1), 0) AS n`,
        [...scopeParams(scope), space.id],
      );
      return r.rows[0]!.n;
    },
    async sample(scope, space, limit) {
      await ns();
      // numeric: seq × 2654435761 overflows bigint past seq 3.4 × 10^9
      const rows = await unlessRetired(space, [], async () => {
        const r = await pool.query<{ seq: number; e: string }>(
          `SELECT v.asset_seq AS seq, v.embedding::text AS e ${scoped(space)}
           ORDER BY (v.asset_seq::numeric * 2654435761) % 4294967296, v.asset_seq LIMIT $3`,
          [...scopeParams(scope), limit],
        );
        return r.rows;
      });
      return rows.map((row) => ({ seq: row.seq, vector: parse(row.e) }));
    },
    async nearest(scope, space, query, k, filters, minSimilarity = -1) {
      checkDimensions(space, query);
      if (k <= 0 || !query.some((v) => v !== 0)) return [];
      const x = await ns();
      const w = pgAssetFilterSql(filters, 4);
      const params = [...scopeParams(scope), literal(query), ...w.params];
      const n = params.length;
      const distance = `(v.embedding OPERATOR(${x}.<=>) $3::${x}.vector)`;
      // "+ 0" hides the ORDER BY from the HNSW index: the planner filters by workspace, then sorts exactly
      // (ties by seq); the index serves only a bare `ORDER BY distance LIMIT k`
      const sql = (exact: boolean): string =>
        `SELECT v.asset_seq AS seq, 1 - ${distance} AS similarity ${scoped(space)}${w.sql}
         ORDER BY ${distance}${exact ? ' + 0, v.asset_seq' : ''} LIMIT $${n + 1}`;
      const rows = await unlessRetired(space, [], () =>
        inTransaction(pool, async (c) => {
          const size = (
            await c.query<{ n: number }>(
              'SELECT coalesce((SELECT vectors FROM asset_vector_counts WHERE space_id = $1 AND workspace_id = $2), 0) AS n',
              [space.id, scope.workspaceId],
            )
          ).rows[0]!.n;
          if (size <= exactScanMax || space.dimensions > HNSW_MAX_DIMENSIONS)
            return (await c.query<VectorHit>(sql(true), [...params, k])).rows;
          // pgvector 0.8 iterative index scans: keep walking the graph until k rows pass the filters
          await c.query(`SET LOCAL hnsw.iterative_scan = strict_order`);
          await c.query(`SELECT set_config('hnsw.ef_search', $1, true)`, [String(Math.min(1000, Math.max(40, 2 * k)))]);
          const hits = (await c.query<VectorHit>(sql(false), [...params, k])).rows;
          // the walk stops after hnsw.max_scan_tuples (20,000) visited rows: a filter passing fewer rows
          // than that share of the partition can leave it short of k, when the exact scan is the answer
          return hits.length === k ? hits : (await c.query<VectorHit>(sql(true), [...params, k])).rows;
        }),
      );
      return rows.filter((h) => h.similarity >= minSimilarity);
    },
  };
}
