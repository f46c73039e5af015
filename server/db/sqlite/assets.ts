import type { Database, Statement } from 'better-sqlite3';
import { CARD_COLUMNS, cardOfValues } from '../asset-cards.ts';
import { jsonProvenance, jsonStrings, provenanceJson } from '../asset-json.ts';
import { orientationSql } from '../orientation-sql.ts';
import type { Scope } from '../../domain/scope.ts';
import {
  newAssetBytes,
  type AssetFilters,
  type AssetRow,
  type AssetStore,
  type NewAsset,
  type RenditionRow,
} from '../ports/asset-store.ts';
import { enforceQuota } from '../ports/storage-quota.ts';
import { createBlobKeyQueries } from './blob-key-queries.ts';
import { creditSettlement } from './credits.ts';
import { storageUsageQuery } from './storage-usage.ts';

/** Every column of `assets` in table order, read by `rowOf`. */
const ROW_COLUMNS =
  'seq, id, tenant_id, workspace_id, kind, format, mime_type, width, height, size_bytes, sha256, source_sha256, converted_from, name, alt_text, tags, auto_tags, purpose, category, subtype, user_fields, ocr_text, source, source_url, provenance, processing_status, enrichment_status, created_at, name_words, blob_key';
/** `ROW_COLUMNS` of the table aliased `a`. */
const A_ROW_COLUMNS = ROW_COLUMNS.split(', ')
  .map((c) => `a.${c}`)
  .join(', ');
/**
 * A raw row of `SELECT ${ROW_COLUMNS}` as an `AssetRow`, its JSON text columns decoded (server/db/asset-json.ts).
 * One object literal: better-sqlite3's row objects and a loop over column names add the ~30 properties
 * one by one, at about twice the cost.
 */
function rowOf(v: unknown[]): AssetRow {
  return {
    seq: v[0] as AssetRow['seq'],
    id: v[1] as AssetRow['id'],
    tenant_id: v[2] as AssetRow['tenant_id'],
    workspace_id: v[3] as AssetRow['workspace_id'],
    kind: v[4] as AssetRow['kind'],
    format: v[5] as AssetRow['format'],
    mime_type: v[6] as AssetRow['mime_type'],
    width: v[7] as AssetRow['width'],
    height: v[8] as AssetRow['height'],
    size_bytes: v[9] as AssetRow['size_bytes'],
    sha256: v[10] as AssetRow['sha256'],
    source_sha256: v[11] as AssetRow['source_sha256'],
    converted_from: v[12] as AssetRow['converted_from'],
    name: v[13] as AssetRow['name'],
    alt_text: v[14] as AssetRow['alt_text'],
    tags: jsonStrings(v[15] as string),
    auto_tags: jsonStrings(v[16] as string),
    purpose: v[17] as AssetRow['purpose'],
    category: v[18] as AssetRow['category'],
    subtype: v[19] as AssetRow['subtype'],
    user_fields: jsonStrings(v[20] as string),
    ocr_text: v[21] as AssetRow['ocr_text'],
    source: v[22] as AssetRow['source'],
    source_url: v[23] as AssetRow['source_url'],
    provenance: jsonProvenance(v[24] as string | null),
    processing_status: v[25] as AssetRow['processing_status'],
    enrichment_status: v[26] as AssetRow['enrichment_status'],
    created_at: v[27] as AssetRow['created_at'],
    name_words: v[28] as AssetRow['name_words'],
    blob_key: v[29] as AssetRow['blob_key'],
  };
}

/** `settings` key of the highest asset seq ever used (kept when that asset is deleted). */
const SEQ_HIGH_WATER = 'asset_seq_high_water';

/** SQL conditions (` AND …`) and parameters of asset filters on `${alias}`. */
export function assetFilterSql(f: AssetFilters, alias = 'a'): { sql: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  if (f.kind) {
    parts.push(`${alias}.kind = ?`);
    params.push(f.kind);
  }
  if (f.category) {
    parts.push(`${alias}.category = ?`);
    params.push(f.category);
  }
  if (f.subtype) {
    parts.push(`${alias}.subtype = ?`);
    params.push(f.subtype);
  }
  if (f.orientation) parts.push(orientationSql(f.orientation, alias));
  if (f.maxSeq !== undefined) {
    parts.push(`${alias}.seq <= ?`);
    params.push(f.maxSeq);
  }
  if (f.excludeSeq !== undefined) {
    parts.push(`${alias}.seq <> ?`);
    params.push(f.excludeSeq);
  }
  return { sql: parts.length ? ` AND ${parts.join(' AND ')}` : '', params };
}

type InsertOptions = Parameters<AssetStore['insert']>[1];

/** The fixed statements of the asset store, prepared once; rows come raw (arrays) for `rowOf`. */
function prepareStatements(db: Database) {
  const rows = (sql: string): Statement => db.prepare(sql).raw();
  return {
    // seq is never reused: SQLite would hand the newest deleted rowid out again (no AUTOINCREMENT), and a
    // reused seq would slip into the snapshot of cursors taken before the deletion (see raiseHighWater).
    insert: db.prepare(
      `INSERT INTO assets (seq, id, tenant_id, workspace_id, kind, format, mime_type, width, height, size_bytes, sha256, blob_key, source_sha256,
         converted_from, name, name_words, alt_text, tags, purpose, category, subtype, user_fields, source, source_url, provenance, enrichment_status, created_at)
       VALUES (
         max(coalesce((SELECT max(seq) FROM assets), 0), coalesce((SELECT CAST(value AS INTEGER) FROM settings WHERE key = '${SEQ_HIGH_WATER}'), 0)) + 1,
         @id, @tenant_id, @workspace_id, @kind, @format, @mime_type, @width, @height, @size_bytes, @sha256, @blob_key, @source_sha256,
         @converted_from, @name, @name_words, @alt_text, @tags, @purpose, @category, @subtype, @user_fields, @source, @source_url, @provenance, @enrichment_status, @created_at)`,
    ),
    raiseHighWater: db.prepare(
      `INSERT INTO settings (key, value) SELECT '${SEQ_HIGH_WATER}', CAST(m AS TEXT) FROM (SELECT max(seq) AS m FROM assets) WHERE m IS NOT NULL
       ON CONFLICT (key) DO UPDATE SET value = excluded.value WHERE CAST(excluded.value AS INTEGER) > CAST(settings.value AS INTEGER)`,
    ),
    insertRendition: db.prepare(
      'INSERT INTO asset_renditions (asset_seq, role, width, height, format, sha256, blob_key, size_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    byId: rows(`SELECT ${ROW_COLUMNS} FROM assets WHERE tenant_id = ? AND workspace_id = ? AND id = ?`),
    bySeq: rows(`SELECT ${ROW_COLUMNS} FROM assets WHERE seq = ?`),
    bySource: rows(`SELECT ${ROW_COLUMNS} FROM assets WHERE tenant_id = ? AND workspace_id = ? AND source_sha256 = ?`),
    // assets_sha256 (migration 0004), then the scope
    byStored: rows(`SELECT ${ROW_COLUMNS} FROM assets WHERE sha256 = ? AND tenant_id = ? AND workspace_id = ? ORDER BY seq LIMIT 1`),
    byName: rows(`SELECT ${ROW_COLUMNS} FROM assets WHERE tenant_id = ? AND workspace_id = ? AND name = ? ORDER BY seq DESC`),
    renditions: db.prepare('SELECT * FROM asset_renditions WHERE asset_seq = ? ORDER BY role, width'),
    // one probe of assets_scope_seq (migration 0045)
    maxSeq: db.prepare('SELECT coalesce(max(seq), 0) AS m FROM assets WHERE tenant_id = ? AND workspace_id = ?'),
    // one pass over the (tenant_id, workspace_id, seq) index: each scope's newest seq is its group's last entry
    recentScopes: db.prepare(
      'SELECT tenant_id AS tenantId, workspace_id AS workspaceId FROM assets INDEXED BY assets_scope_seq GROUP BY tenant_id, workspace_id ORDER BY max(seq) DESC LIMIT ?',
    ),
    changeHead: db.prepare('SELECT coalesce(max(id), 0) AS id FROM search_changes'),
    // the pending count probes the partial index of migration 0060; the workspace is counted only when it is > 0
    enrichmentBacklog: db.prepare(
      `SELECT p.n AS pending, CASE WHEN p.n > 0 THEN (SELECT count(*) FROM assets WHERE tenant_id = @t AND workspace_id = @w) ELSE 0 END AS total
       FROM (SELECT count(*) AS n FROM assets WHERE tenant_id = @t AND workspace_id = @w AND enrichment_status IN ('pending', 'running')) p`,
    ),
    searchSnapshot: rows(
      'SELECT (SELECT coalesce(max(seq), 0) FROM assets WHERE tenant_id = ? AND workspace_id = ?), (SELECT coalesce(max(id), 0) FROM search_changes)',
    ),
    updateMeta: db.prepare(
      `UPDATE assets SET name = @name, name_words = @name_words, tags = @tags, purpose = @purpose, category = @category, subtype = @subtype, user_fields = @user_fields,
         alt_text = CASE WHEN @alt_machine = 1 THEN (SELECT machine_alt_text FROM asset_enrichment WHERE asset_seq = @seq) ELSE @alt_text END
       WHERE seq = @seq AND tenant_id = @tenant_id AND workspace_id = @workspace_id`,
    ),
    deleteOne: db.prepare('DELETE FROM assets WHERE seq = ? AND tenant_id = ? AND workspace_id = ?'),
    blobReferenced: db.prepare('SELECT 1 FROM assets WHERE sha256 = ? UNION ALL SELECT 1 FROM asset_renditions WHERE sha256 = ? LIMIT 1'),
    ownsBlob: db.prepare(
      `SELECT 1 FROM assets WHERE tenant_id = ? AND workspace_id = ? AND sha256 = ?
       UNION ALL
       SELECT 1 FROM asset_renditions r JOIN assets a ON a.seq = r.asset_seq WHERE r.sha256 = ? AND a.tenant_id = ? AND a.workspace_id = ?
       LIMIT 1`,
    ),
  };
}

/**
 * Rows by seq, scoped, in the order given (missing and foreign seqs dropped): one prepared statement per
 * IN-list size class, rounded up to a power of two (≥ 8, padded with -1) so few shapes exist.
 * @param sql the statement for `marks` (`?,?,…`): its parameters are the seqs, then the tenant and workspace
 * @param decode a raw row (values) as the result, whose `seq` it keeps
 */
function scopedInList<T extends { seq: number }>(db: Database, sql: (marks: string) => string, decode: (v: unknown[]) => T) {
  const cache = new Map<number, Statement>();
  return (tenantId: string, workspaceId: string, seqs: number[]): T[] => {
    if (seqs.length === 0) return [];
    const n = Math.max(8, 2 ** Math.ceil(Math.log2(seqs.length)));
    let st = cache.get(n);
    if (!st) {
      st = db.prepare(sql(new Array<string>(n).fill('?').join(','))).raw();
      cache.set(n, st);
    }
    const padded = [...seqs, ...new Array<number>(n - seqs.length).fill(-1)];
    const bySeq = new Map<number, T>();
    for (const v of st.all(...padded, tenantId, workspaceId) as unknown[][]) {
      const r = decode(v);
      bySeq.set(r.seq, r);
    }
    return seqs.map((q) => bySeq.get(q)).filter((r): r is T => r !== undefined);
  };
}

/**
 * `AssetStore.insert` as a better-sqlite3 transaction function (run it `.immediate`): the quota check
 * before the rows, the credit settlement after them, all in one write transaction.
 */
function insertTransaction(db: Database, s: ReturnType<typeof prepareStatements>, keys: ReturnType<typeof createBlobKeyQueries>) {
  const settle = creditSettlement(db);
  const usage = storageUsageQuery(db);
  return db.transaction((a: NewAsset, o: InsertOptions): number => {
    const quota = o?.quota;
    if (quota) enforceQuota(quota, usage(a.tenant_id, quota.nowMs, quota.exceptUploadId), newAssetBytes(a));
    const key = (sha: string): string => keys.keyOf(a.tenant_id, sha);
    const info = s.insert.run({
      ...a,
      blob_key: key(a.sha256),
      tags: JSON.stringify(a.tags),
      user_fields: JSON.stringify(a.user_fields),
      provenance: provenanceJson(a.provenance),
    });
    const seq = Number(info.lastInsertRowid);
    for (const r of a.renditions) s.insertRendition.run(seq, r.role, r.width, r.height, r.format, r.sha256, key(r.sha256), r.size_bytes);
    const h = o?.settle;
    if (h) settle(h.scope, h.holdId, { assetId: a.id, provider: h.provider, model: h.model, credits: h.credits });
    return seq;
  });
}

/** Fill `name_words` of rows written before migration 0022 (the FTS row follows by trigger), in batches of 500. @returns rows updated */
function backfillNameWords(db: Database, words: (name: string) => string): number {
  // Prepared inside the write transaction: the UPDATE's triggers open assets_fts, and FTS5's constructor
  // fails ("vtable constructor failed") instead of waiting while another process starting on the same
  // new data dir is still migrating; BEGIN IMMEDIATE waits for that process's commit (busy_timeout).
  const batch = db.transaction((): number => {
    const rows = db.prepare('SELECT seq, name FROM assets WHERE name_words IS NULL LIMIT 500').all() as { seq: number; name: string }[];
    const set = db.prepare('UPDATE assets SET name_words = ? WHERE seq = ?');
    for (const r of rows) set.run(words(r.name), r.seq);
    return rows.length;
  });
  let n = 0;
  for (;;) {
    const done = batch.immediate();
    if (done === 0) return n;
    n += done;
  }
}

/**
 * The SQLite `AssetStore` (tables of migrations 0001, 0022, 0045, 0046, 0062): every method takes the
 * server-derived `Scope` first where it has one, and a row of another tenant or workspace is never
 * returned (it behaves as missing). Lists and provenance are stored as JSON text and decoded on read
 * (server/db/asset-json.ts). Multi-statement writes run in `BEGIN IMMEDIATE` transactions (a savepoint
 * inside a transaction the caller opened). better-sqlite3 is synchronous: each method does its work
 * before it returns its promise.
 */
export function createSqliteAssetStore(db: Database): AssetStore {
  const s = prepareStatements(db);
  const keys = createBlobKeyQueries(db);
  const usage = storageUsageQuery(db);
  const one = (st: Statement, ...params: unknown[]): AssetRow | undefined => {
    const v = st.get(...params) as unknown[] | undefined;
    return v ? rowOf(v) : undefined;
  };
  // One rowid probe per seq, the scope checked on the row (`+` keeps SQLite off assets_scope_seq, a
  // second B-tree descent per row).
  const rowsBySeq = scopedInList(
    db,
    (marks) => `SELECT ${ROW_COLUMNS} FROM assets WHERE seq IN (${marks}) AND +tenant_id = ? AND +workspace_id = ?`,
    rowOf,
  );
  const cardsBySeq = scopedInList(
    db,
    (marks) => `SELECT ${CARD_COLUMNS} FROM assets a WHERE a.seq IN (${marks}) AND +a.tenant_id = ? AND +a.workspace_id = ?`,
    cardOfValues,
  );
  /** Statements of `browse`, prepared once per filter shape. */
  const browseCache = new Map<string, Statement>();
  const prep = (sql: string): Statement => {
    let st = browseCache.get(sql);
    if (!st) browseCache.set(sql, (st = db.prepare(sql)));
    return st;
  };
  const insert = insertTransaction(db, s, keys);
  return {
    insert: async (a, o) => insert.immediate(a, o),
    storageUsage: async (tenantId, nowMs, except) => usage(tenantId, nowMs, except),
    byId: async (scope, id) => one(s.byId, scope.tenantId, scope.workspaceId, id.toLowerCase()),
    bySeq: async (seq) => one(s.bySeq, seq),
    bySourceSha: async (scope, sha) => one(s.bySource, scope.tenantId, scope.workspaceId, sha),
    byStoredSha: async (scope, sha) => one(s.byStored, sha, scope.tenantId, scope.workspaceId),
    byName: async (scope, name) => (s.byName.all(scope.tenantId, scope.workspaceId, name) as unknown[][]).map(rowOf),
    renditions: async (seq) => s.renditions.all(seq) as RenditionRow[],
    ownsBlob: async (scope, sha) =>
      s.ownsBlob.get(scope.tenantId, scope.workspaceId, sha, sha, scope.tenantId, scope.workspaceId) !== undefined,
    // the FTS row follows by trigger
    async updateMetadata(scope, seq, m) {
      s.updateMeta.run({
        seq,
        tenant_id: scope.tenantId,
        workspace_id: scope.workspaceId,
        name: m.name,
        name_words: m.name_words,
        tags: JSON.stringify(m.tags),
        purpose: m.purpose,
        category: m.category,
        subtype: m.subtype,
        user_fields: JSON.stringify(m.user_fields),
        alt_machine: typeof m.alt_text === 'object' && m.alt_text !== null ? 1 : 0,
        alt_text: typeof m.alt_text === 'string' ? m.alt_text : null,
      });
    },
    // renditions, enrichment jobs and facts cascade (foreign keys); FTS rows and vectors go by trigger
    deleteMany: async (scope, seqs) =>
      db
        .transaction(() => {
          s.raiseHighWater.run();
          return seqs.reduce((n, seq) => n + s.deleteOne.run(seq, scope.tenantId, scope.workspaceId).changes, 0);
        })
        .immediate(),
    backfillNameWords: async (words) => backfillNameWords(db, words),
    blobReferenced: async (sha) => s.blobReferenced.get(sha, sha) !== undefined,
    blobByKey: async (key) => keys.byKey(key),
    backfillBlobKeys: async () => keys.backfill(),
    maxSeq: async (scope) => (s.maxSeq.get(scope.tenantId, scope.workspaceId) as { m: number }).m,
    recentScopes: async (limit) => s.recentScopes.all(limit) as Scope[],
    bySeqs: async (scope, seqs) => rowsBySeq(scope.tenantId, scope.workspaceId, seqs),
    cardsBySeqs: async (scope, seqs) => cardsBySeq(scope.tenantId, scope.workspaceId, seqs),
    changeHead: async () => (s.changeHead.get() as { id: number }).id,
    // one statement: one read transaction
    async searchSnapshot(scope) {
      const [maxSeq, changeHead] = s.searchSnapshot.get(scope.tenantId, scope.workspaceId) as [number, number];
      return { maxSeq, changeHead };
    },
    enrichmentBacklog: async (scope) =>
      s.enrichmentBacklog.get({ t: scope.tenantId, w: scope.workspaceId }) as { pending: number; total: number },
    async browse(scope, f, offset, limit) {
      const w = assetFilterSql(f);
      const base = `FROM assets a WHERE a.tenant_id = ? AND a.workspace_id = ?${w.sql}`;
      const total = (prep(`SELECT count(*) AS n ${base}`).get(scope.tenantId, scope.workspaceId, ...w.params) as { n: number }).n;
      const page = prep(`SELECT ${A_ROW_COLUMNS} ${base} ORDER BY a.created_at DESC, a.seq DESC LIMIT ? OFFSET ?`)
        .raw()
        .all(scope.tenantId, scope.workspaceId, ...w.params, limit, offset) as unknown[][];
      return { rows: page.map(rowOf), total };
    },
  };
}
