import {
  newAssetBytes,
  type AssetCard,
  type AssetFilters,
  type AssetRow,
  type AssetStore,
  type RenditionRow,
} from '../ports/asset-store.ts';
import { enforceQuota } from '../ports/storage-quota.ts';
import { CARD_COLUMNS, cardOfValues } from '../asset-cards.ts';
import { jsonProvenance, jsonStrings, provenanceJson } from '../asset-json.ts';
import { orientationSql } from '../orientation-sql.ts';
import { assetLexicalVector, refreshAssetVectors } from './asset-lexicon.ts';
import { createPgBlobKeys } from './blob-keys.ts';
import { settleIn } from './credits.ts';
import { inTransaction, isoOf, type PgClient, type PgPool } from './pool.ts';
import { lockTenantUsage, pgStorageUsage } from './storage-usage.ts';

type Query = Pick<PgClient, 'query'>;
/** A row as the driver reads it: the lists and provenance as the JSON text migration 0003 stores, `created_at` as a Date. */
type RawRow = Omit<AssetRow, 'tags' | 'auto_tags' | 'user_fields' | 'provenance' | 'created_at'> & {
  tags: string;
  auto_tags: string;
  user_fields: string;
  provenance: string | null;
  created_at: Date;
};

/** Every column of `assets` the port's row has. */
const COLUMNS = `seq, id, tenant_id, workspace_id, kind, format, mime_type, width, height, size_bytes, sha256, blob_key, source_sha256,
  converted_from, name, name_words, alt_text, tags, auto_tags, purpose, category, subtype, user_fields, ocr_text, source, source_url,
  provenance, processing_status, enrichment_status, created_at`;
const A_COLUMNS = COLUMNS.split(',')
  .map((c) => `a.${c.trim()}`)
  .join(', ');
const RENDITION = 'asset_seq, role, width, height, format, sha256, blob_key, size_bytes';

/** The port's row of a raw row: JSON text decoded (server/db/asset-json.ts), `created_at` as ISO 8601 UTC with ms. */
const toRow = (r: RawRow): AssetRow => ({
  ...r,
  tags: jsonStrings(r.tags),
  auto_tags: jsonStrings(r.auto_tags),
  user_fields: jsonStrings(r.user_fields),
  provenance: jsonProvenance(r.provenance),
  created_at: isoOf(r.created_at)!,
});

/** Most rows `backfillNameWords` updates per transaction. */
const BACKFILL_BATCH = 500;

/**
 * SQL conditions (` AND …`) and parameters of asset filters on `${alias}`, numbered from `$first`: the
 * PostgreSQL twin of `assetFilterSql` (server/db/sqlite/assets.ts), sharing its orientation rule.
 */
export function pgAssetFilterSql(f: AssetFilters, first: number, alias = 'a'): { sql: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  const add = (cond: (p: string) => string, v: unknown): void => {
    params.push(v);
    parts.push(cond(`$${first + params.length - 1}`));
  };
  if (f.kind) add((p) => `${alias}.kind = ${p}`, f.kind);
  if (f.category) add((p) => `${alias}.category = ${p}`, f.category);
  if (f.subtype) add((p) => `${alias}.subtype = ${p}`, f.subtype);
  if (f.orientation) parts.push(orientationSql(f.orientation, alias));
  if (f.maxSeq !== undefined) add((p) => `${alias}.seq <= ${p}`, f.maxSeq);
  if (f.excludeSeq !== undefined) add((p) => `${alias}.seq <> ${p}`, f.excludeSeq);
  return { sql: parts.length ? ` AND ${parts.join(' AND ')}` : '', params };
}

async function assetRows(q: Query, sql: string, params: unknown[]): Promise<AssetRow[]> {
  return (await q.query<RawRow>(sql, params)).rows.map(toRow);
}

/**
 * The PostgreSQL `AssetStore` (tables of postgres/migrations/0003). `insert` first locks the
 * workspace's row (FOR NO KEY UPDATE, which inserts referencing it do not wait for), so the inserts of
 * one workspace take their seqs in commit order: a reader's `maxSeq` snapshot bound can never be
 * overtaken by a smaller seq committing later, as SQLite's single writer guarantees. `insert`,
 * `updateMetadata` and `backfillNameWords` write the lexical vector of the rows they change
 * (asset-lexicon.ts) in their transaction. Not wired into the server yet (see pool.ts).
 */
export function createPgAssetStore(pool: PgPool): AssetStore {
  const one = async (sql: string, params: unknown[]): Promise<AssetRow | undefined> => (await assetRows(pool, sql, params))[0];
  const exists = async (sql: string, params: unknown[]): Promise<boolean> => ((await pool.query(sql, params)).rowCount ?? 0) > 0;
  const keys = createPgBlobKeys(pool);
  return {
    insert: (a, o) =>
      inTransaction(pool, async (c) => {
        await c.query('SELECT 1 FROM workspaces WHERE tenant_id = $1 AND id = $2 FOR NO KEY UPDATE', [a.tenant_id, a.workspace_id]);
        const quota = o?.quota;
        if (quota) {
          // workspace row first, then tenant row: the order every quota-checked insert takes them in
          await lockTenantUsage(c, a.tenant_id);
          enforceQuota(quota, await pgStorageUsage(c, a.tenant_id, quota.nowMs, quota.exceptUploadId), newAssetBytes(a));
        }
        const key = await keys.keysFor(c, a.tenant_id);
        const r = await c.query<{ seq: number }>(
          `INSERT INTO assets (id, tenant_id, workspace_id, kind, format, mime_type, width, height, size_bytes, sha256, source_sha256,
             converted_from, name, name_words, alt_text, tags, purpose, category, subtype, user_fields, source, source_url, provenance,
             enrichment_status, created_at, lexical_vector, blob_key)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25,
             $26::tsvector, $27)
           RETURNING seq`,
          [
            a.id,
            a.tenant_id,
            a.workspace_id,
            a.kind,
            a.format,
            a.mime_type,
            a.width,
            a.height,
            a.size_bytes,
            a.sha256,
            a.source_sha256,
            a.converted_from,
            a.name,
            a.name_words,
            a.alt_text,
            JSON.stringify(a.tags),
            a.purpose,
            a.category,
            a.subtype,
            JSON.stringify(a.user_fields),
            a.source,
            a.source_url,
            provenanceJson(a.provenance),
            a.enrichment_status,
            a.created_at,
            assetLexicalVector({ ...a, auto_tags: [], ocr_text: null }),
            key(a.sha256),
          ],
        );
        const seq = r.rows[0]!.seq;
        for (const x of a.renditions)
          await c.query(`INSERT INTO asset_renditions (${RENDITION}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, [
            seq,
            x.role,
            x.width,
            x.height,
            x.format,
            x.sha256,
            key(x.sha256),
            x.size_bytes,
          ]);
        const h = o?.settle;
        if (h) await settleIn(c, h.scope, h.holdId, { assetId: a.id, provider: h.provider, model: h.model, credits: h.credits });
        return seq;
      }),
    storageUsage: (tenantId, nowMs, except) => pgStorageUsage(pool, tenantId, nowMs, except),
    byId: (scope, id) =>
      one(`SELECT ${COLUMNS} FROM assets WHERE tenant_id = $1 AND workspace_id = $2 AND id = $3`, [
        scope.tenantId,
        scope.workspaceId,
        id.toLowerCase(),
      ]),
    bySeq: (seq) => one(`SELECT ${COLUMNS} FROM assets WHERE seq = $1`, [seq]),
    bySourceSha: (scope, sha) =>
      one(`SELECT ${COLUMNS} FROM assets WHERE tenant_id = $1 AND workspace_id = $2 AND source_sha256 = $3`, [
        scope.tenantId,
        scope.workspaceId,
        sha,
      ]),
    byStoredSha: (scope, sha) =>
      one(`SELECT ${COLUMNS} FROM assets WHERE sha256 = $1 AND tenant_id = $2 AND workspace_id = $3 ORDER BY seq LIMIT 1`, [
        sha,
        scope.tenantId,
        scope.workspaceId,
      ]),
    byName: (scope, name) =>
      assetRows(pool, `SELECT ${COLUMNS} FROM assets WHERE tenant_id = $1 AND workspace_id = $2 AND name = $3 ORDER BY seq DESC`, [
        scope.tenantId,
        scope.workspaceId,
        name,
      ]),
    async renditions(seq) {
      return (await pool.query<RenditionRow>(`SELECT ${RENDITION} FROM asset_renditions WHERE asset_seq = $1 ORDER BY role, width`, [seq]))
        .rows;
    },
    ownsBlob: (scope, sha) =>
      exists(
        `SELECT 1 FROM assets WHERE tenant_id = $1 AND workspace_id = $2 AND sha256 = $3
         UNION ALL
         SELECT 1 FROM asset_renditions r JOIN assets a ON a.seq = r.asset_seq WHERE r.sha256 = $3 AND a.tenant_id = $1 AND a.workspace_id = $2
         LIMIT 1`,
        [scope.tenantId, scope.workspaceId, sha],
      ),
    async updateMetadata(scope, seq, m) {
      const machine = typeof m.alt_text === 'object' && m.alt_text !== null;
      // the lexical vector follows in the same transaction (the machine alt text is only known here)
      await inTransaction(pool, async (c) => {
        const r = await c.query(
          `UPDATE assets SET name = $4, name_words = $5, tags = $6, purpose = $7, category = $8, subtype = $9, user_fields = $10,
           alt_text = CASE WHEN $11::boolean THEN (SELECT machine_alt_text FROM asset_enrichment WHERE asset_seq = $1) ELSE $12::text END
         WHERE seq = $1 AND tenant_id = $2 AND workspace_id = $3`,
          [
            seq,
            scope.tenantId,
            scope.workspaceId,
            m.name,
            m.name_words,
            JSON.stringify(m.tags),
            m.purpose,
            m.category,
            m.subtype,
            JSON.stringify(m.user_fields),
            machine,
            typeof m.alt_text === 'string' ? m.alt_text : null,
          ],
        );
        if ((r.rowCount ?? 0) > 0) await refreshAssetVectors(c, [seq]);
      });
    },
    async deleteMany(scope, seqs) {
      if (seqs.length === 0) return 0;
      const r = await pool.query('DELETE FROM assets WHERE tenant_id = $1 AND workspace_id = $2 AND seq = ANY($3::bigint[])', [
        scope.tenantId,
        scope.workspaceId,
        seqs,
      ]);
      return r.rowCount ?? 0;
    },
    async backfillNameWords(words) {
      let n = 0;
      for (;;) {
        const done = await inTransaction(pool, async (c) => {
          // SKIP LOCKED: two processes backfilling at once take disjoint batches
          const rows = (
            await c.query<{ seq: number; name: string }>(
              'SELECT seq, name FROM assets WHERE name_words IS NULL ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED',
              [BACKFILL_BATCH],
            )
          ).rows;
          if (rows.length === 0) return 0;
          await c.query('UPDATE assets SET name_words = v.w FROM unnest($1::bigint[], $2::text[]) AS v (seq, w) WHERE assets.seq = v.seq', [
            rows.map((r) => r.seq),
            rows.map((r) => words(r.name)),
          ]);
          await refreshAssetVectors(
            c,
            rows.map((r) => r.seq),
          );
          return rows.length;
        });
        if (done === 0) return n;
        n += done;
      }
    },
    blobReferenced: (sha) =>
      exists('SELECT 1 FROM assets WHERE sha256 = $1 UNION ALL SELECT 1 FROM asset_renditions WHERE sha256 = $1 LIMIT 1', [sha]),
    blobByKey: (key) => keys.byKey(key),
    backfillBlobKeys: () => keys.backfill(),
    async maxSeq(scope) {
      const r = await pool.query<{ m: number }>(
        'SELECT coalesce(max(seq), 0) AS m FROM assets WHERE tenant_id = $1 AND workspace_id = $2',
        [scope.tenantId, scope.workspaceId],
      );
      return r.rows[0]!.m;
    },
    async recentScopes(limit) {
      const r = await pool.query<{ tenantId: string; workspaceId: string }>(
        'SELECT tenant_id AS "tenantId", workspace_id AS "workspaceId" FROM assets GROUP BY tenant_id, workspace_id ORDER BY max(seq) DESC LIMIT $1',
        [limit],
      );
      return r.rows.map((x) => ({ tenantId: x.tenantId, workspaceId: x.workspaceId }));
    },
    async bySeqs(scope, seqs) {
      if (seqs.length === 0) return [];
      const rows = await assetRows(
        pool,
        `SELECT ${COLUMNS} FROM assets WHERE tenant_id = $1 AND workspace_id = $2 AND seq = ANY($3::bigint[])`,
        [scope.tenantId, scope.workspaceId, seqs],
      );
      const bySeq = new Map(rows.map((r) => [r.seq, r]));
      return seqs.map((q) => bySeq.get(q)).filter((r): r is AssetRow => r !== undefined);
    },
    async cardsBySeqs(scope, seqs) {
      if (seqs.length === 0) return [];
      const r = await pool.query<unknown[]>({
        text: `SELECT ${CARD_COLUMNS} FROM assets a WHERE a.tenant_id = $1 AND a.workspace_id = $2 AND a.seq = ANY($3::bigint[])`,
        values: [scope.tenantId, scope.workspaceId, seqs],
        rowMode: 'array',
      });
      const bySeq = new Map(r.rows.map((v) => cardOfValues(v)).map((c) => [c.seq, c]));
      return seqs.map((q) => bySeq.get(q)).filter((c): c is AssetCard => c !== undefined);
    },
    async changeHead() {
      return (await pool.query<{ id: number }>('SELECT coalesce(max(id), 0) AS id FROM search_changes')).rows[0]!.id;
    },
    async searchSnapshot(scope) {
      const r = await pool.query<{ m: number; h: number }>(
        'SELECT (SELECT coalesce(max(seq), 0) FROM assets WHERE tenant_id = $1 AND workspace_id = $2) AS m, (SELECT coalesce(max(id), 0) FROM search_changes) AS h',
        [scope.tenantId, scope.workspaceId],
      );
      return { maxSeq: Number(r.rows[0]!.m), changeHead: Number(r.rows[0]!.h) };
    },
    async enrichmentBacklog(scope) {
      // the pending count reads the partial index of migration 0018; the workspace is counted only when it is > 0
      const r = await pool.query<{ pending: string; total: string }>(
        `SELECT p.n AS pending, CASE WHEN p.n > 0 THEN (SELECT count(*) FROM assets WHERE tenant_id = $1 AND workspace_id = $2) ELSE 0 END AS total
         FROM (SELECT count(*) AS n FROM assets WHERE tenant_id = $1 AND workspace_id = $2 AND enrichment_status IN ('pending', 'running')) p`,
        [scope.tenantId, scope.workspaceId],
      );
      return { pending: Number(r.rows[0]!.pending), total: Number(r.rows[0]!.total) };
    },
    async browse(scope, f, offset, limit) {
      const w = pgAssetFilterSql(f, 3);
      const base = `FROM assets a WHERE a.tenant_id = $1 AND a.workspace_id = $2${w.sql}`;
      const params = [scope.tenantId, scope.workspaceId, ...w.params];
      const total = (await pool.query<{ n: number }>(`SELECT count(*) AS n ${base}`, params)).rows[0]!.n;
      const n = params.length;
      const rows = await assetRows(
        pool,
        `SELECT ${A_COLUMNS} ${base} ORDER BY a.created_at DESC, a.seq DESC LIMIT $${n + 1} OFFSET $${n + 2}`,
        [...params, limit, offset],
      );
      return { rows, total };
    },
  };
}
