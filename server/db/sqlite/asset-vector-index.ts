import type { Database, Statement } from 'better-sqlite3';
import type { Scope } from '../../domain/scope.ts';
import { PartitionBudget, PartitionMap } from '../../vector-scan/partition-budget.ts';
import { QuantisedIndex, type ScanFilter } from '../../vector-scan/quantised-index.ts';
import type { AssetFilters } from '../ports/asset-store.ts';
import { replayChanges, type SearchChanges } from './search-changes.ts';

/** The space columns the partition reads (a subset of db/ports/vector-store.ts SpaceRow). */
export interface PartitionSpace {
  id: number;
  dimensions: number;
}

/** A nearest-neighbour hit: asset seq and cosine similarity. */
export interface NearestHit {
  seq: number;
  similarity: number;
}

const KIND = 0,
  CATEGORY = 1,
  SUBTYPE = 2,
  ORIENTATION = 3;
const ORIENTATIONS = { landscape: 1, portrait: 2, square: 3 } as const;
/** A partition is reloaded whole when more of its rows changed than this share (bulk imports). */
const RELOAD_SHARE = 0.25;

/** Orientation code from width/height (px), the same rule as db/orientation-sql.ts. */
function orientationCode(w: number | null, h: number | null): number {
  if (!w || !h || w <= 0 || h <= 0) return 0;
  if (w > h * 1.05) return ORIENTATIONS.landscape;
  if (w < h * 0.95) return ORIENTATIONS.portrait;
  return ORIENTATIONS.square;
}

const toVector = (b: Buffer): Float32Array => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));

interface Row {
  seq: number;
  kind: string;
  category: string | null;
  subtype: string | null;
  width: number | null;
  height: number | null;
  embedding: Buffer;
}
interface Partition {
  space: PartitionSpace;
  tenantId: string;
  workspaceId: string;
  index: QuantisedIndex;
}

/**
 * In-memory partitions of the asset vector spaces, one per (space, workspace), searched by the int8
 * WebAssembly scan with exact re-rank (vector-scan/quantised-index.ts). The vec0 tables stay the
 * storage of record: a partition is loaded from them (joined with `assets` for the filter columns) on
 * its first search, and before every search the `search_changes` log is replayed, so writes of this
 * and every other process are seen (each changed seq is re-read; a bulk change reloads the partition).
 * Filters (kind, category, subtype, orientation, snapshot bound, excluded seq) run inside the scan.
 * Loaded partitions count against `budget` (shared with the process's other partitions): the least
 * recently searched are dropped beyond it and load again on their next search.
 * @param budget the process's partition memory bound (default: one of its own, DEFAULT_PARTITION_BUDGET_BYTES)
 */
export function createAssetVectorIndex(db: Database, changes: SearchChanges, budget: PartitionBudget = new PartitionBudget()) {
  const parts = new PartitionMap<Partition>(budget);
  const loadStmts = new Map<number, { all: Statement; one: Statement }>();
  const codes = new Map<string, number>();
  let mark = changes.head();
  const liveStmt = db.prepare("SELECT 1 FROM vector_spaces WHERE id = ? AND status <> 'retired'").pluck();
  const code = (v: string | null): number => {
    if (v === null) return 0;
    let c = codes.get(v);
    if (c === undefined) codes.set(v, (c = codes.size + 1));
    return c;
  };
  const stmts = (space: PartitionSpace) => {
    let s = loadStmts.get(space.id);
    if (!s) {
      const cols = 'a.seq AS seq, a.kind, a.category, a.subtype, a.width, a.height, v.embedding';
      // CROSS JOIN: walk the workspace's assets by index, then one vec0 lookup by primary key per row
      s = {
        all: db.prepare(
          `SELECT ${cols} FROM assets a CROSS JOIN vec_space_${space.id} v ON v.asset_seq = a.seq WHERE a.tenant_id = ? AND a.workspace_id = ?`,
        ),
        one: db.prepare(
          `SELECT ${cols} FROM assets a CROSS JOIN vec_space_${space.id} v ON v.asset_seq = a.seq WHERE a.seq = ? AND a.tenant_id = ? AND a.workspace_id = ?`,
        ),
      };
      loadStmts.set(space.id, s);
    }
    return s;
  };
  const put = (index: QuantisedIndex, r: Row): void => {
    const v = toVector(r.embedding);
    if (v.length === index.dims)
      index.upsert(r.seq, v, [code(r.kind), code(r.category), code(r.subtype), orientationCode(r.width, r.height)]);
  };
  const load = (space: PartitionSpace, scope: Scope): Partition => {
    const index = new QuantisedIndex(space.dimensions, 4);
    for (const r of stmts(space).all.iterate(scope.tenantId, scope.workspaceId) as Iterable<Row>) put(index, r);
    return { space, tenantId: scope.tenantId, workspaceId: scope.workspaceId, index };
  };

  /** Drop a space's partitions and statements (retired, or revived with a new table). */
  const forget = (spaceId: number): void => {
    for (const [key, p] of parts) if (p.space.id === spaceId) parts.delete(key);
    loadStmts.delete(spaceId);
  };

  /**
   * Bring every loaded partition up to the head of the change log (`head`: as the caller read it for
   * this request; one older than the mark leaves the partitions as they are). A space retired or
   * revived by any process (db/sqlite/vector-store.ts logs it: `logSpace`) drops its partitions here: they load
   * again on demand.
   */
  const sync = (head?: number): void => {
    mark = replayChanges(changes, mark, 'asset', parts, {
      partOf: (p) => p.workspaceId,
      apply: (p, seq) => {
        const r = stmts(p.space).one.get(seq, p.tenantId, p.workspaceId) as Row | undefined;
        if (r) put(p.index, r);
        else p.index.remove(seq);
      },
      reloadShare: RELOAD_SHARE,
      stale: forget,
      head,
    });
  };

  /** The loaded partition of the space in the workspace, loaded now if needed; null when the space is retired (no table). */
  const partition = (space: PartitionSpace, scope: Scope, head?: number): Partition | null => {
    sync(head);
    const key = `${space.id}|${scope.tenantId}|${scope.workspaceId}`;
    let p = parts.use(key);
    if (!p) {
      // sync() read the mark before these rows: a write committed in between is replayed again (idempotent)
      try {
        p = load(space, scope);
      } catch (e) {
        // retire dropped the table (SQLite: 'no such table'); the status is read only then
        if (liveStmt.get(space.id) === undefined) return null;
        throw e;
      }
      parts.set(key, p);
    }
    return p;
  };
  const filterOf = (f: AssetFilters): ScanFilter => {
    const attrs: ScanFilter['attrs'] = [];
    // a value never seen cannot match: -1 is no row's code
    const known = (v: string): number => codes.get(v) ?? -1;
    if (f.kind) attrs.push({ col: KIND, values: [known(f.kind)] });
    if (f.category) attrs.push({ col: CATEGORY, values: [known(f.category)] });
    if (f.subtype) attrs.push({ col: SUBTYPE, values: [known(f.subtype)] });
    if (f.orientation) attrs.push({ col: ORIENTATION, values: [ORIENTATIONS[f.orientation]] });
    return { attrs, maxKey: f.maxSeq, excludeKey: f.excludeSeq };
  };

  return {
    /**
     * The `k` vectors of the workspace nearest to `q` by cosine that pass the filters, nearest first,
     * each with similarity ≥ `minCosine` (recall@10 vs exact measured by bench/vectors.bench.ts); none
     * when the space is retired. `head`: the change-log head read for this request (read here when absent).
     */
    nearest(
      space: PartitionSpace,
      scope: Scope,
      q: Float32Array,
      f: AssetFilters,
      k: number,
      minCosine: number,
      head?: number,
    ): NearestHit[] {
      if (q.length !== space.dimensions) return [];
      const p = partition(space, scope, head);
      if (!p) return [];
      return p.index.search(q, k, filterOf(f), minCosine).map((h) => ({ seq: h.key, similarity: h.similarity }));
    },
    /** Vectors the space holds in the workspace (zero vectors included; 0 when the space is retired), as of `head` as for `nearest`. */
    count(space: PartitionSpace, scope: Scope, head?: number): number {
      return partition(space, scope, head)?.index.size ?? 0;
    },
    /** Forget a space's partitions (the space was retired or revived by this connection). */
    forget,
  };
}
export type AssetVectorIndex = ReturnType<typeof createAssetVectorIndex>;
