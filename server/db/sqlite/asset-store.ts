import type { Database } from 'better-sqlite3';
import { createAssetQueries } from './assets.ts';
import { creditSettlement } from './credits.ts';
import { newAssetBytes, type AssetStore } from '../ports/asset-store.ts';
import { enforceQuota } from '../ports/storage-quota.ts';
import { storageUsageQuery } from './storage-usage.ts';

/**
 * The SQLite `AssetStore`: an adapter over the synchronous queries of server/db/sqlite/assets.ts (tables of
 * migrations 0001, 0022, 0045, 0046), which it does not change. better-sqlite3 is synchronous: each
 * method does its work before it returns its promise.
 */
export function createSqliteAssetStore(db: Database): AssetStore {
  const q = createAssetQueries(db);
  const settle = creditSettlement(db);
  const usage = storageUsageQuery(db);
  return {
    insert: async (a, o) => {
      const h = o?.settle;
      const quota = o?.quota;
      return q.insert(
        a,
        h ? () => void settle(h.scope, h.holdId, { assetId: a.id, provider: h.provider, model: h.model, credits: h.credits }) : undefined,
        quota ? () => enforceQuota(quota, usage(a.tenant_id, quota.nowMs, quota.exceptUploadId), newAssetBytes(a)) : undefined,
      );
    },
    storageUsage: async (tenantId, nowMs, except) => usage(tenantId, nowMs, except),
    byId: async (scope, id) => q.byId(scope, id),
    bySeq: async (seq) => q.bySeq(seq),
    bySourceSha: async (scope, sha) => q.bySourceSha(scope, sha),
    byStoredSha: async (scope, sha) => q.byStoredSha(scope, sha),
    byName: async (scope, name) => q.byName(scope, name),
    renditions: async (seq) => q.renditions(seq),
    ownsBlob: async (scope, sha) => q.ownsBlob(scope, sha),
    updateMetadata: async (scope, seq, m) => q.updateMetadata(scope, seq, m),
    deleteMany: async (scope, seqs) => q.deleteMany(scope, seqs),
    backfillNameWords: async (words) => q.backfillNameWords(words),
    blobReferenced: async (sha) => q.blobReferenced(sha),
    blobByKey: async (key) => q.blobByKey(key),
    backfillBlobKeys: async () => q.backfillBlobKeys(),
    maxSeq: async (scope) => q.maxSeq(scope),
    recentScopes: async (limit) => q.recentScopes(limit),
    bySeqs: async (scope, seqs) => q.bySeqs(scope, seqs),
    cardsBySeqs: async (scope, seqs) => (seqs.length === 0 ? [] : q.cardsBySeqs(scope, seqs)),
    changeHead: async () => q.changeHead(),
    searchSnapshot: async (scope) => q.searchSnapshot(scope),
    enrichmentBacklog: async (scope) => q.enrichmentBacklog(scope),
    browse: async (scope, f, offset, limit) => q.browse(scope, f, offset, limit),
  };
}
