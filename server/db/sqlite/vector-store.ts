import type { Database } from 'better-sqlite3';
import type { Scope } from '../../domain/scope.ts';
import { checkDimensions, VectorSpaceRetiredError, type VectorStore } from '../ports/vector-store.ts';
import { createVectorQueries, type VectorQueries } from './vectors.ts';

interface AssetMeta {
  kind: string;
  category: string | null;
  subtype: string | null;
}

/**
 * The SQLite `VectorStore`: the sqlite-vec spaces of server/db/sqlite/vectors.ts, searched by their quantised
 * in-memory partitions (db/sqlite/asset-vector-index.ts). The adapter adds the scope checks the port promises
 * (vectors.ts trusts its callers' seqs): a vector is written, read or removed only when the asset is in
 * the scope. A retired space reads as empty (vectors.ts answers so for a dropped table) and refuses puts.
 * @param queries the vector queries of the same connection (default: new ones, with partitions of their own)
 */
export function createSqliteVectorStore(db: Database, queries: VectorQueries = createVectorQueries(db)): VectorStore {
  const metaStmt = db.prepare('SELECT kind, category, subtype FROM assets WHERE seq = ? AND tenant_id = ? AND workspace_id = ?');
  const metaOf = (scope: Scope, seq: number): AssetMeta | undefined =>
    metaStmt.get(seq, scope.tenantId, scope.workspaceId) as AssetMeta | undefined;
  return {
    available: async () => ({ ok: true }),
    liveSpaces: async (purpose) => queries.liveSpaces(purpose),
    ensureSpace: async (purpose, modelId, dimensions, status) => {
      if (!Number.isInteger(dimensions) || dimensions <= 0) throw new Error(`dimensions must be a positive integer, got ${dimensions}`);
      return queries.ensureSpace(purpose, modelId, dimensions, status);
    },
    setStatus: async (space, status) => queries.setStatus(space, status),
    retire: async (space) => queries.retire(space),
    async put(scope, space, seq, vector) {
      checkDimensions(space, vector);
      const meta = metaOf(scope, seq);
      if (!meta) {
        // a retired space refuses every put, as on PostgreSQL (whose insert fails on the dropped table first)
        if (!queries.isLive(space)) throw new VectorSpaceRetiredError(space.id, `put asset ${seq}`);
        return false;
      }
      queries.put(space, seq, scope.workspaceId, vector, meta);
      return true;
    },
    get: async (scope, space, seq) => (metaOf(scope, seq) ? queries.get(space, seq) : null),
    async remove(scope, space, seq) {
      if (metaOf(scope, seq)) queries.remove(space, seq, scope.workspaceId);
    },
    count: async (scope, space, head) => queries.count(space, scope, head),
    async sample(scope, space, limit) {
      // vectors.ts samples a workspace; the tenant check drops rows of a workspace id reused across tenants
      const rows = queries.sample(space, scope.workspaceId, limit);
      return rows.filter((r) => metaOf(scope, r.seq) !== undefined);
    },
    async nearest(scope, space, query, k, filters, minSimilarity = -1, head) {
      checkDimensions(space, query);
      if (k <= 0 || !query.some((x) => x !== 0)) return [];
      return queries.nearest(space, scope, query, filters, k, minSimilarity, head);
    },
  };
}
