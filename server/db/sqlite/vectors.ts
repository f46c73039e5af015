import type { Database, Statement } from 'better-sqlite3';
import type { Scope } from '../../domain/scope.ts';
import type { AssetFilters } from '../ports/asset-store.ts';
import { createAssetVectorIndex } from './asset-vector-index.ts';
import { VectorSpaceRetiredError, type SpacePurpose, type SpaceRow } from '../ports/vector-store.ts';
import type { PartitionBudget } from '../../vector-scan/partition-budget.ts';
import { createSearchChanges } from './search-changes.ts';

/** Asset metadata copied into a space's vec0 metadata columns, so filters run inside the KNN. */
export interface VectorMeta {
  kind: string;
  category: string | null;
  subtype: string | null;
}

/** A KNN hit: asset seq and cosine distance (0 = same direction, 2 = opposite). */
export interface KnnHit {
  seq: number;
  distance: number;
}

/** sqlite-vec caps `k` of one KNN query (SQLITE_VEC_VEC0_K_MAX). */
export const VEC0_K_MAX = 4096;

const tableOf = (space: SpaceRow): string => `vec_space_${space.id}`;
const blob = (v: Float32Array): Buffer => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

/**
 * Vector spaces and their sqlite-vec `vec0` tables (cosine distance, partitioned by workspace), the
 * storage of record. Searches run on in-memory quantised partitions loaded from them
 * (db/sqlite/asset-vector-index.ts, `nearest`); every vector write is logged in `search_changes` so the
 * partitions of every process follow it. `knn` (sqlite-vec's own exact KNN) is kept as the reference.
 * Syntax: https://alexgarcia.xyz/sqlite-vec/features/knn.html, partition keys:
 * https://alexgarcia.xyz/sqlite-vec/features/vec0.html#partition-keys
 * @param budget the process's memory bound of in-memory partitions (default: one of its own)
 */
export function createVectorQueries(db: Database, budget?: PartitionBudget) {
  const s = {
    spaces: db.prepare('SELECT * FROM vector_spaces WHERE purpose = ? AND status <> ? ORDER BY id'),
    space: db.prepare('SELECT * FROM vector_spaces WHERE purpose = ? AND model_id = ? AND dimensions = ?'),
    insertSpace: db.prepare('INSERT INTO vector_spaces (purpose, model_id, dimensions, status, created_at) VALUES (?, ?, ?, ?, ?)'),
    setStatus: db.prepare('UPDATE vector_spaces SET status = ? WHERE id = ?'),
    live: db.prepare("SELECT 1 FROM vector_spaces WHERE id = ? AND status <> 'retired'").pluck(),
    setLiveStatus: db.prepare("UPDATE vector_spaces SET status = ? WHERE id = ? AND status <> 'retired'"),
  };
  const knnStmts = new Map<string, Statement<unknown[], KnnHit>>();
  const changes = createSearchChanges(db);
  const partitions = createAssetVectorIndex(db, changes, budget);
  const metaCache = new Map<number, boolean>();
  /** Spaces created before metadata columns existed are filtered by over-fetching instead. */
  const hasMeta = (space: SpaceRow): boolean => {
    let v = metaCache.get(space.id);
    if (v === undefined) {
      const row = db.prepare('SELECT sql FROM sqlite_master WHERE name = ?').get(tableOf(space)) as { sql: string } | undefined;
      v = row !== undefined && /\bcategory TEXT\b/.test(row.sql);
      metaCache.set(space.id, v);
    }
    return v;
  };

  /** Whether the space is live now (`space.status` is what it was when read). */
  const isLive = (space: SpaceRow): boolean => s.live.get(space.id) !== undefined;
  /**
   * `read()`, or `empty` when the space is retired: `retire` dropped its table, so a read of a space
   * retired since the caller looked it up fails in SQLite ('no such table'); the check runs only then.
   */
  const unlessRetired = <T>(space: SpaceRow, empty: T, read: () => T): T => {
    try {
      return read();
    } catch (e) {
      if (!isLive(space)) return empty;
      throw e;
    }
  };
  /** Drop what this connection cached of a space's table (retired, or revived with a new table). */
  const forget = (space: SpaceRow): void => {
    for (const key of [...knnStmts.keys()]) if (key.startsWith(`${space.id}:`)) knnStmts.delete(key);
    metaCache.delete(space.id);
    partitions.forget(space.id);
  };

  const api = {
    /** Live (building or ready) spaces of a purpose, oldest first. */
    liveSpaces: (purpose: SpacePurpose) => s.spaces.all(purpose, 'retired') as SpaceRow[],

    /**
     * The space for a model, created (with its vec0 table and a delete trigger on `assets`) if missing.
     * A retired space of the same model is revived as `status`, with a new empty table: `retire` dropped
     * its vectors, so a revived space is built again like a new one.
     */
    ensureSpace(purpose: SpacePurpose, modelId: string, dimensions: number, status: 'building' | 'ready'): SpaceRow {
      return db
        .transaction(() => {
          const found = s.space.get(purpose, modelId, dimensions) as SpaceRow | undefined;
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
          // kind/category/subtype are vec0 metadata columns ('' for null): filters apply inside the KNN.
          db.exec(
            `CREATE VIRTUAL TABLE IF NOT EXISTS ${t} USING vec0(asset_seq INTEGER PRIMARY KEY, workspace_id TEXT PARTITION KEY, kind TEXT, category TEXT, subtype TEXT, embedding float[${dimensions}] distance_metric=cosine)`,
          );
          db.exec(`CREATE TRIGGER IF NOT EXISTS ${t}_ad AFTER DELETE ON assets BEGIN DELETE FROM ${t} WHERE asset_seq = old.seq; END`);
          if (found) forget(space);
          return space;
        })
        .immediate();
    },

    /**
     * Set a live space's status (`ready` after its build).
     * @throws VectorSpaceRetiredError when the space is retired (its table is gone: only `ensureSpace` revives it)
     */
    setStatus(space: SpaceRow, status: 'building' | 'ready'): void {
      if (s.setLiveStatus.run(status, space.id).changes === 0) throw new VectorSpaceRetiredError(space.id, `set status ${status}`);
    },

    /**
     * Retire a space and drop its table and trigger (its vectors are never read again). Reads of a
     * retired space (`get`, `count`, `nearest`, `sample`) answer as for an empty space, in every
     * process (the retirement is logged in `search_changes`, so every process drops its partitions).
     */
    retire(space: SpaceRow): void {
      db.transaction(() => {
        s.setStatus.run('retired', space.id);
        db.exec(`DROP TRIGGER IF EXISTS ${tableOf(space)}_ad`);
        db.exec(`DROP TABLE IF EXISTS ${tableOf(space)}`);
        changes.logSpace(space.id);
      }).immediate();
      forget(space);
    },

    /** Whether kind/category/subtype filters run inside this space's KNN. */
    filtersInKnn: (space: SpaceRow) => hasMeta(space),

    /**
     * Insert or replace one asset's vector.
     * @throws Error when the length differs from the space's
     * @throws VectorSpaceRetiredError when the space is retired (checked in the write transaction, so a
     *   racing retire either commits first and is seen, or waits and drops the vector with the table)
     */
    put(space: SpaceRow, seq: number, workspaceId: string, v: Float32Array, meta: VectorMeta): void {
      if (v.length !== space.dimensions)
        throw new Error(`vector has ${v.length} dimensions, space ${space.model_id} has ${space.dimensions}`);
      const t = tableOf(space);
      db.transaction(() => {
        if (!isLive(space)) throw new VectorSpaceRetiredError(space.id, `put asset ${seq}`);
        db.prepare(`DELETE FROM ${t} WHERE asset_seq = ?`).run(BigInt(seq));
        if (hasMeta(space)) {
          db.prepare(`INSERT INTO ${t} (asset_seq, workspace_id, kind, category, subtype, embedding) VALUES (?, ?, ?, ?, ?, ?)`).run(
            BigInt(seq),
            workspaceId,
            meta.kind,
            meta.category ?? '',
            meta.subtype ?? '',
            blob(v),
          );
        } else {
          db.prepare(`INSERT INTO ${t} (asset_seq, workspace_id, embedding) VALUES (?, ?, ?)`).run(BigInt(seq), workspaceId, blob(v));
        }
        changes.log('asset', workspaceId, seq);
      }).immediate();
    },

    /** One asset's stored vector, or null (also when the space is retired). */
    get(space: SpaceRow, seq: number): Float32Array | null {
      const r = unlessRetired(
        space,
        undefined,
        () =>
          db.prepare(`SELECT embedding FROM ${tableOf(space)} WHERE asset_seq = ?`).get(BigInt(seq)) as { embedding: Buffer } | undefined,
      );
      return r ? new Float32Array(r.embedding.buffer.slice(r.embedding.byteOffset, r.embedding.byteOffset + r.embedding.byteLength)) : null;
    },

    /** Delete one asset's vector of a workspace, logged for the partitions (no vector, or a retired space: nothing happens). */
    remove(space: SpaceRow, seq: number, workspaceId: string): void {
      unlessRetired(space, undefined, () =>
        db
          .transaction(() => {
            if (db.prepare(`DELETE FROM ${tableOf(space)} WHERE asset_seq = ?`).run(BigInt(seq)).changes > 0)
              changes.log('asset', workspaceId, seq);
          })
          .immediate(),
      );
    },

    /** Whether the space is live (building or ready) now. */
    isLive,

    /**
     * Number of vectors a space holds in a workspace (from its in-memory partition; 0 when retired).
     * @param head the change-log head read for this request (read here when absent)
     */
    count: (space: SpaceRow, scope: Scope, head?: number) => partitions.count(space, scope, head),

    /**
     * The `k` vectors of the workspace nearest to `q` (cosine) passing the filters, nearest first, each
     * with similarity ≥ `minCosine`: the quantised scan with exact re-rank of db/sqlite/asset-vector-index.ts.
     * @param head the change-log head read for this request (read here when absent)
     */
    nearest: (space: SpaceRow, scope: Scope, q: Float32Array, f: AssetFilters, k: number, minCosine: number, head?: number) =>
      partitions.nearest(space, scope, q, f, k, minCosine, head),

    /**
     * Up to `limit` vectors of a workspace in a fixed pseudo-random order (Knuth's multiplicative hash of
     * the seq), for calibration: the same corpus always gives the same sample.
     */
    sample(space: SpaceRow, workspaceId: string, limit: number): { seq: number; vector: Float32Array }[] {
      const rows = unlessRetired(
        space,
        [],
        () =>
          db
            .prepare(
              `SELECT asset_seq AS seq, embedding FROM ${tableOf(space)} WHERE workspace_id = ? ORDER BY (asset_seq * 2654435761) % 4294967296 LIMIT ?`,
            )
            .all(workspaceId, limit) as { seq: number; embedding: Buffer }[],
      );
      return rows.map((r) => ({
        seq: r.seq,
        vector: new Float32Array(r.embedding.buffer.slice(r.embedding.byteOffset, r.embedding.byteOffset + r.embedding.byteLength)),
      }));
    },

    /**
     * KNN within one workspace partition, nearest first (k ≤ VEC0_K_MAX). kind/category/subtype of `f`
     * are applied inside the KNN when the space has metadata columns (see `filtersInKnn`).
     */
    knn(space: SpaceRow, workspaceId: string, query: Float32Array, k: number, f: AssetFilters = {}): KnnHit[] {
      const meta = hasMeta(space) ? (['kind', 'category', 'subtype'] as const).filter((c) => f[c]) : [];
      const key = `${space.id}:${meta.join(',')}`;
      let st = knnStmts.get(key);
      if (!st) {
        const extra = meta.map((c) => ` AND ${c} = ?`).join('');
        st = db.prepare<unknown[], KnnHit>(
          `SELECT asset_seq AS seq, distance FROM ${tableOf(space)} WHERE embedding MATCH ? AND k = ? AND workspace_id = ?${extra} ORDER BY distance`,
        );
        knnStmts.set(key, st);
      }
      return st.all(blob(query), Math.min(k, VEC0_K_MAX), workspaceId, ...meta.map((c) => f[c]));
    },
  };
  return api;
}
export type VectorQueries = ReturnType<typeof createVectorQueries>;
