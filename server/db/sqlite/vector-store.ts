import type { Database, Statement } from 'better-sqlite3';
import type { Scope } from '../../domain/scope.ts';
import type { PartitionBudget } from '../../vector-scan/partition-budget.ts';
import { checkDimensions, VectorSpaceRetiredError, type SpaceRow, type VectorStore } from '../ports/vector-store.ts';
import { createAssetVectorIndex, type AssetVectorIndex } from './asset-vector-index.ts';
import { createSearchChanges, type SearchChanges } from './search-changes.ts';

/** sqlite-vec caps `k` of one KNN query (SQLITE_VEC_VEC0_K_MAX). */
const VEC0_K_MAX = 4096;

/** The asset columns copied into a space's vec0 metadata columns. */
interface AssetMeta {
  kind: string;
  category: string | null;
  subtype: string | null;
}

const tableOf = (space: Pick<SpaceRow, 'id'>): string => `vec_space_${Number(space.id)}`;
const blob = (v: Float32Array): Buffer => Buffer.from(v.buffer, v.byteOffset, v.byteLength);
const vectorOf = (b: Buffer): Float32Array => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));

/**
 * What the store's methods share about the spaces' vec0 tables on one connection: whether a space is live
 * now, whether its table has metadata columns, its write statements (prepared once per table), and how a
 * read of a retired space's dropped table answers.
 */
function spaceTables(db: Database, partitions: AssetVectorIndex) {
  const live = db.prepare<[number], number>("SELECT 1 FROM vector_spaces WHERE id = ? AND status <> 'retired'").pluck();
  const tableSql = db.prepare<[string], string>('SELECT sql FROM sqlite_master WHERE name = ?').pluck();
  const metaCache = new Map<number, boolean>();
  const writes = new Map<number, { del: Statement<[bigint]>; insert: Statement<unknown[]> }>();
  /** Whether the space is live now (`space.status` is what it was when read). */
  const isLive = (space: SpaceRow): boolean => live.get(space.id) !== undefined;
  /** Spaces created before the metadata columns existed are written without them. */
  const hasMeta = (space: SpaceRow): boolean => {
    let v = metaCache.get(space.id);
    if (v === undefined) {
      const sql = tableSql.get(tableOf(space));
      v = sql !== undefined && /\bcategory TEXT\b/.test(sql);
      metaCache.set(space.id, v);
    }
    return v;
  };
  return {
    isLive,
    hasMeta,
    /** The DELETE and INSERT of a live space's table (kind/category/subtype are '' for null in the metadata columns). */
    writesOf(space: SpaceRow) {
      let w = writes.get(space.id);
      if (!w) {
        const t = tableOf(space);
        w = {
          del: db.prepare(`DELETE FROM ${t} WHERE asset_seq = ?`),
          insert: hasMeta(space)
            ? db.prepare(`INSERT INTO ${t} (asset_seq, workspace_id, kind, category, subtype, embedding) VALUES (?, ?, ?, ?, ?, ?)`)
            : db.prepare(`INSERT INTO ${t} (asset_seq, workspace_id, embedding) VALUES (?, ?, ?)`),
        };
        writes.set(space.id, w);
      }
      return w;
    },
    /**
     * `read()`, or `empty` when the space is retired: `retire` dropped its table, so a read of a space
     * retired since the caller looked it up fails in SQLite ('no such table'); the status is read only then.
     */
    unlessRetired<T>(space: SpaceRow, empty: T, read: () => T): T {
      try {
        return read();
      } catch (e) {
        if (!isLive(space)) return empty;
        throw e;
      }
    },
    /** Drop what this connection holds of a space's table (retired, or revived with a new table). */
    forget(space: SpaceRow): void {
      metaCache.delete(space.id);
      writes.delete(space.id);
      partitions.forget(space.id);
    },
  };
}
type SpaceTables = ReturnType<typeof spaceTables>;

/** The space methods: rows of `vector_spaces` and their vec0 tables, changed in IMMEDIATE transactions. */
function spaceMethods(
  db: Database,
  tables: SpaceTables,
  changes: SearchChanges,
): Pick<VectorStore, 'liveSpaces' | 'ensureSpace' | 'setStatus' | 'retire'> {
  const s = {
    spaces: db.prepare<[string], SpaceRow>("SELECT * FROM vector_spaces WHERE purpose = ? AND status <> 'retired' ORDER BY id"),
    space: db.prepare<[string, string, number], SpaceRow>(
      'SELECT * FROM vector_spaces WHERE purpose = ? AND model_id = ? AND dimensions = ?',
    ),
    insertSpace: db.prepare('INSERT INTO vector_spaces (purpose, model_id, dimensions, status, created_at) VALUES (?, ?, ?, ?, ?)'),
    setStatus: db.prepare('UPDATE vector_spaces SET status = ? WHERE id = ?'),
    setLiveStatus: db.prepare("UPDATE vector_spaces SET status = ? WHERE id = ? AND status <> 'retired'"),
  };
  const ensureSpace = db.transaction((...[purpose, modelId, dimensions, status]: Parameters<VectorStore['ensureSpace']>): SpaceRow => {
    const found = s.space.get(purpose, modelId, dimensions);
    if (found && found.status !== 'retired') return found;
    let space: SpaceRow;
    if (found) {
      s.setStatus.run(status, found.id);
      space = { ...found, status };
      // other processes' partitions of the space hold the old table's vectors
      changes.logSpace(found.id);
    } else {
      // one clock reading: the row returned is the row stored
      const created = new Date().toISOString();
      const id = Number(s.insertSpace.run(purpose, modelId, dimensions, status, created).lastInsertRowid);
      space = { id, purpose, model_id: modelId, dimensions, status, created_at: created };
    }
    const t = tableOf(space);
    // kind/category/subtype are vec0 metadata columns ('' for null), as sqlite-vec's own KNN filters on them
    db.exec(
      `CREATE VIRTUAL TABLE IF NOT EXISTS ${t} USING vec0(asset_seq INTEGER PRIMARY KEY, workspace_id TEXT PARTITION KEY, kind TEXT, category TEXT, subtype TEXT, embedding float[${dimensions}] distance_metric=cosine)`,
    );
    db.exec(`CREATE TRIGGER IF NOT EXISTS ${t}_ad AFTER DELETE ON assets BEGIN DELETE FROM ${t} WHERE asset_seq = old.seq; END`);
    if (found) tables.forget(space);
    return space;
  });
  const retire = db.transaction((space: SpaceRow): void => {
    s.setStatus.run('retired', space.id);
    db.exec(`DROP TRIGGER IF EXISTS ${tableOf(space)}_ad`);
    db.exec(`DROP TABLE IF EXISTS ${tableOf(space)}`);
    changes.logSpace(space.id);
  });
  return {
    liveSpaces: async (purpose) => s.spaces.all(purpose),
    async ensureSpace(purpose, modelId, dimensions, status) {
      if (!Number.isInteger(dimensions) || dimensions <= 0) throw new Error(`dimensions must be a positive integer, got ${dimensions}`);
      return ensureSpace.immediate(purpose, modelId, dimensions, status);
    },
    async setStatus(space, status) {
      if (s.setLiveStatus.run(status, space.id).changes === 0) throw new VectorSpaceRetiredError(space.id, `set status ${status}`);
    },
    async retire(space) {
      retire.immediate(space);
      tables.forget(space);
    },
  };
}

/** The per-asset methods: each first checks that the asset is the scope's (the vec0 tables know no tenant). */
function vectorMethods(db: Database, tables: SpaceTables, changes: SearchChanges): Pick<VectorStore, 'put' | 'get' | 'remove' | 'sample'> {
  const metaStmt = db.prepare<[number, string, string], AssetMeta>(
    'SELECT kind, category, subtype FROM assets WHERE seq = ? AND tenant_id = ? AND workspace_id = ?',
  );
  const metaOf = (scope: Scope, seq: number): AssetMeta | undefined => metaStmt.get(seq, scope.tenantId, scope.workspaceId);
  const write = db.transaction((space: SpaceRow, seq: number, workspaceId: string, v: Float32Array, meta: AssetMeta): void => {
    // checked in the write transaction: a racing retire either committed first and is seen here, or
    // waits and drops the vector with the table
    if (!tables.isLive(space)) throw new VectorSpaceRetiredError(space.id, `put asset ${seq}`);
    const w = tables.writesOf(space);
    w.del.run(BigInt(seq));
    if (tables.hasMeta(space)) w.insert.run(BigInt(seq), workspaceId, meta.kind, meta.category ?? '', meta.subtype ?? '', blob(v));
    else w.insert.run(BigInt(seq), workspaceId, blob(v));
    changes.log('asset', workspaceId, seq);
  });
  const erase = db.transaction((space: SpaceRow, seq: number, workspaceId: string): void => {
    if (tables.writesOf(space).del.run(BigInt(seq)).changes > 0) changes.log('asset', workspaceId, seq);
  });
  return {
    async put(scope, space, seq, vector) {
      checkDimensions(space, vector);
      const meta = metaOf(scope, seq);
      if (!meta) {
        // a retired space refuses every put, as on PostgreSQL (whose insert fails on the dropped table first)
        if (!tables.isLive(space)) throw new VectorSpaceRetiredError(space.id, `put asset ${seq}`);
        return false;
      }
      write.immediate(space, seq, scope.workspaceId, vector, meta);
      return true;
    },
    async get(scope, space, seq) {
      if (!metaOf(scope, seq)) return null;
      const r = tables.unlessRetired(
        space,
        undefined,
        () =>
          db.prepare(`SELECT embedding FROM ${tableOf(space)} WHERE asset_seq = ?`).get(BigInt(seq)) as { embedding: Buffer } | undefined,
      );
      return r ? vectorOf(r.embedding) : null;
    },
    async remove(scope, space, seq) {
      if (metaOf(scope, seq)) tables.unlessRetired(space, undefined, () => erase.immediate(space, seq, scope.workspaceId));
    },
    async sample(scope, space, limit) {
      // Knuth's multiplicative hash of the seq: the same corpus always gives the same sample
      const rows = tables.unlessRetired(
        space,
        [],
        () =>
          db
            .prepare(
              `SELECT asset_seq AS seq, embedding FROM ${tableOf(space)} WHERE workspace_id = ? ORDER BY (asset_seq * 2654435761) % 4294967296 LIMIT ?`,
            )
            .all(scope.workspaceId, limit) as { seq: number; embedding: Buffer }[],
      );
      // the table is partitioned by workspace id alone: the tenant check drops rows of a workspace id reused across tenants
      return rows.filter((r) => metaOf(scope, r.seq) !== undefined).map((r) => ({ seq: r.seq, vector: vectorOf(r.embedding) }));
    },
  };
}

/**
 * The SQLite `VectorStore`. Spaces are rows of `vector_spaces`; each space's vectors live in a sqlite-vec
 * `vec0` table of its own, `vec_space_<id>` (cosine distance, partitioned by workspace id, with the
 * asset's kind/category/subtype as metadata columns), created by `ensureSpace`, dropped by `retire`, and
 * emptied of an asset's row by a delete trigger on `assets`. Those tables are the storage of record;
 * `nearest` and `count` answer from in-memory int8 partitions loaded from them (asset-vector-index.ts:
 * WebAssembly scan with exact re-rank, which `npm run bench vectors` shows pays against sqlite-vec's
 * exact KNN). Every vector write, retirement and revival is logged in `search_changes` in its
 * transaction, so the partitions of every process follow it.
 * Scope: a vector is written, read or removed only when its asset is the scope's. A retired space reads
 * as empty and refuses puts (checked in the write transaction). better-sqlite3 is synchronous: each
 * method does its work before it returns its promise.
 * Syntax: https://alexgarcia.xyz/sqlite-vec/features/knn.html, partition keys:
 * https://alexgarcia.xyz/sqlite-vec/features/vec0.html#partition-keys
 * @param opts.budget the process's memory bound of in-memory partitions, shared with its other
 *   partitions (default: one of its own)
 */
export function createSqliteVectorStore(db: Database, opts: { budget?: PartitionBudget | undefined } = {}): VectorStore {
  const changes = createSearchChanges(db);
  const partitions = createAssetVectorIndex(db, changes, opts.budget);
  const tables = spaceTables(db, partitions);
  return {
    available: async () => ({ ok: true }),
    ...spaceMethods(db, tables, changes),
    ...vectorMethods(db, tables, changes),
    count: async (scope, space, head) => partitions.count(space, scope, head),
    async nearest(scope, space, query, k, filters, minSimilarity = -1, head) {
      checkDimensions(space, query);
      if (k <= 0 || !query.some((x) => x !== 0)) return [];
      return partitions.nearest(space, scope, query, filters, k, minSimilarity, head);
    },
  };
}

/**
 * sqlite-vec's own exact KNN over one workspace of a space's table, nearest first: `k` (at most 4,096)
 * asset seqs with their cosine distance (0 = same direction, 2 = opposite), no scope check, no filter.
 * Not part of the port: the reference bench/vectors.bench.ts times the partitions against and measures
 * their recall by; the server searches through `nearest`.
 */
export function exactKnn(
  db: Database,
  space: SpaceRow,
  workspaceId: string,
  query: Float32Array,
  k: number,
): { seq: number; distance: number }[] {
  return db
    .prepare<[Buffer, number, string], { seq: number; distance: number }>(
      `SELECT asset_seq AS seq, distance FROM ${tableOf(space)} WHERE embedding MATCH ? AND k = ? AND workspace_id = ? ORDER BY distance`,
    )
    .all(blob(query), Math.min(k, VEC0_K_MAX), workspaceId);
}
