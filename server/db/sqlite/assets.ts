import type { Database, Statement } from 'better-sqlite3';
import type { Scope } from '../../domain/scope.ts';
import { CARD_COLUMNS, cardOfValues } from '../asset-cards.ts';
import { orientationSql } from '../orientation-sql.ts';
import type { AssetCard, AssetFilters, AssetMetadataUpdate, AssetRow, NewAsset, RenditionRow } from '../ports/asset-store.ts';
import { createBlobKeyQueries } from './blob-key-queries.ts';

/** Every column of `assets` in table order (`SELECT *`), read by `rowOf`. */
const ROW_COLUMNS =
  'seq, id, tenant_id, workspace_id, kind, format, mime_type, width, height, size_bytes, sha256, source_sha256, converted_from, name, alt_text, tags, auto_tags, purpose, category, subtype, user_fields, ocr_text, source, source_url, provenance, processing_status, enrichment_status, created_at, name_words, blob_key';
/** A raw row of `SELECT ${ROW_COLUMNS}` as an `AssetRow`. */
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
    tags: v[15] as AssetRow['tags'],
    auto_tags: v[16] as AssetRow['auto_tags'],
    purpose: v[17] as AssetRow['purpose'],
    category: v[18] as AssetRow['category'],
    subtype: v[19] as AssetRow['subtype'],
    user_fields: v[20] as AssetRow['user_fields'],
    ocr_text: v[21] as AssetRow['ocr_text'],
    source: v[22] as AssetRow['source'],
    source_url: v[23] as AssetRow['source_url'],
    provenance: v[24] as AssetRow['provenance'],
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

/**
 * Asset queries. Every function takes the server-derived `Scope` first; a row of another tenant or
 * workspace is never returned (it behaves as missing).
 */
export function createAssetQueries(db: Database) {
  /** Statements prepared once per SQL text (filter shape, IN-list arity). */
  const cache = new Map<string, Statement>();
  const prep = (sql: string): Statement => {
    let st = cache.get(sql);
    if (!st) cache.set(sql, (st = db.prepare(sql)));
    return st;
  };
  /** `?` placeholders for `n` values, rounded up to a power of two (≥ 8) so few shapes exist; pad with `padIn`. */
  const arity = (n: number): number => Math.max(8, 2 ** Math.ceil(Math.log2(Math.max(1, n))));
  const padIn = (seqs: number[]): number[] => [...seqs, ...new Array<number>(arity(seqs.length) - seqs.length).fill(-1)];
  const marks = (n: number): string => new Array<string>(arity(n)).fill('?').join(',');
  const keys = createBlobKeyQueries(db);
  const s = {
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
    byId: db.prepare('SELECT * FROM assets WHERE tenant_id = ? AND workspace_id = ? AND id = ?'),
    bySeq: db.prepare('SELECT * FROM assets WHERE seq = ?'),
    bySource: db.prepare('SELECT * FROM assets WHERE tenant_id = ? AND workspace_id = ? AND source_sha256 = ?'),
    // assets_sha256 (migration 0004), then the scope
    byStored: db.prepare('SELECT * FROM assets WHERE sha256 = ? AND tenant_id = ? AND workspace_id = ? ORDER BY seq LIMIT 1'),
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
    searchSnapshot: db
      .prepare(
        'SELECT (SELECT coalesce(max(seq), 0) FROM assets WHERE tenant_id = ? AND workspace_id = ?), (SELECT coalesce(max(id), 0) FROM search_changes)',
      )
      .raw(),
    updateMeta: db.prepare(
      `UPDATE assets SET name = @name, name_words = @name_words, tags = @tags, purpose = @purpose, category = @category, subtype = @subtype, user_fields = @user_fields,
         alt_text = CASE WHEN @alt_machine = 1 THEN (SELECT machine_alt_text FROM asset_enrichment WHERE asset_seq = @seq) ELSE @alt_text END
       WHERE seq = @seq AND tenant_id = @tenant_id AND workspace_id = @workspace_id`,
    ),
    deleteOne: db.prepare('DELETE FROM assets WHERE seq = ? AND tenant_id = ? AND workspace_id = ?'),
    blobReferenced: db.prepare('SELECT 1 FROM assets WHERE sha256 = ? UNION ALL SELECT 1 FROM asset_renditions WHERE sha256 = ? LIMIT 1'),
    byName: db.prepare('SELECT * FROM assets WHERE tenant_id = ? AND workspace_id = ? AND name = ? ORDER BY seq DESC'),
    ownsBlob: db.prepare(
      `SELECT 1 FROM assets WHERE tenant_id = ? AND workspace_id = ? AND sha256 = ?
       UNION ALL
       SELECT 1 FROM asset_renditions r JOIN assets a ON a.seq = r.asset_seq WHERE r.sha256 = ? AND a.tenant_id = ? AND a.workspace_id = ?
       LIMIT 1`,
    ),
  };

  return {
    /**
     * Insert an asset and its renditions in one transaction. `within` runs inside the same transaction
     * after the rows exist (e.g. the credit charge of a generated asset); `before` runs in it before the
     * rows are written (e.g. the storage quota check). If either throws, nothing is inserted.
     * @returns the new row's seq
     */
    insert(a: NewAsset, within?: (seq: number) => void, before?: () => void): number {
      return db
        .transaction(() => {
          before?.();
          const key = (sha: string): string => keys.keyOf(a.tenant_id, sha);
          const info = s.insert.run({
            ...a,
            blob_key: key(a.sha256),
            tags: JSON.stringify(a.tags),
            user_fields: JSON.stringify(a.user_fields),
          });
          const seq = Number(info.lastInsertRowid);
          for (const r of a.renditions)
            s.insertRendition.run(seq, r.role, r.width, r.height, r.format, r.sha256, key(r.sha256), r.size_bytes);
          within?.(seq);
          return seq;
        })
        .immediate();
    },
    byId: (scope: Scope, id: string) => s.byId.get(scope.tenantId, scope.workspaceId, id.toLowerCase()) as AssetRow | undefined,
    /** Internal lookup by row id for background jobs that already hold a verified seq. */
    bySeq: (seq: number) => s.bySeq.get(seq) as AssetRow | undefined,
    bySourceSha: (scope: Scope, sha: string) => s.bySource.get(scope.tenantId, scope.workspaceId, sha) as AssetRow | undefined,
    byStoredSha: (scope: Scope, sha: string) => s.byStored.get(sha, scope.tenantId, scope.workspaceId) as AssetRow | undefined,
    byName: (scope: Scope, name: string) => s.byName.all(scope.tenantId, scope.workspaceId, name) as AssetRow[],
    renditions: (seq: number) => s.renditions.all(seq) as RenditionRow[],
    /** True when a blob (original or rendition) belongs to an asset of the workspace (CDN URL → asset scoping). */
    ownsBlob: (scope: Scope, sha: string): boolean =>
      s.ownsBlob.get(scope.tenantId, scope.workspaceId, sha, sha, scope.tenantId, scope.workspaceId) !== undefined,
    /**
     * Replace the user-editable metadata of one asset of the workspace (the FTS row follows by trigger).
     * `alt_text: { machine: true }` takes the machine alt text of enrichment (null when not analysed yet).
     */
    updateMetadata(scope: Scope, seq: number, m: AssetMetadataUpdate): void {
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
    /**
     * Delete assets of the workspace in one transaction. Renditions, enrichment jobs and facts cascade
     * (foreign keys); FTS rows and vectors go with the row (triggers). Blob files are left to the GC.
     * @returns the number of rows deleted
     */
    deleteMany(scope: Scope, seqs: number[]): number {
      return db
        .transaction(() => {
          s.raiseHighWater.run();
          return seqs.reduce((n, seq) => n + s.deleteOne.run(seq, scope.tenantId, scope.workspaceId).changes, 0);
        })
        .immediate();
    },
    /**
     * Fill `name_words` of rows written before migration 0022 (the FTS row follows by trigger), in
     * batches of 500. @returns rows updated
     */
    backfillNameWords(words: (name: string) => string): number {
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
    },
    /** Whether any asset or rendition of any workspace references a blob (the CDN serves only those). */
    blobReferenced: (sha: string): boolean => s.blobReferenced.get(sha, sha) !== undefined,
    /** The blob a public key names (`/a/<key>`): sha256 and stored format of a row holding the key, or null. */
    blobByKey: (key: string) => keys.byKey(key),
    /** Fill the public blob keys of rows written before migration 0062. @returns rows updated */
    backfillBlobKeys: (): number => keys.backfill(),
    /** Highest seq in the workspace: the snapshot bound of a new result set. */
    maxSeq: (scope: Scope) => (s.maxSeq.get(scope.tenantId, scope.workspaceId) as { m: number }).m,
    /** The workspaces holding assets, newest asset first, at most `limit`. */
    recentScopes: (limit: number): Scope[] => s.recentScopes.all(limit) as Scope[],

    /**
     * Rows by seq, scoped, in the order given (missing/foreign seqs dropped): one prepared statement per
     * IN-list size class (the search over `assets_scope_seq`).
     */
    bySeqs(scope: Scope, seqs: number[]): AssetRow[] {
      if (seqs.length === 0) return [];
      // One rowid probe per seq, the scope checked on the row (`+` keeps SQLite off assets_scope_seq, a
      // second B-tree descent per row); rows as arrays made objects by one literal (better-sqlite3 and a
      // loop over column names add ~30 properties one by one, at about twice the cost).
      const st = prep(`SELECT ${ROW_COLUMNS} FROM assets WHERE seq IN (${marks(seqs.length)}) AND +tenant_id = ? AND +workspace_id = ?`);
      const bySeq = new Map<number, AssetRow>();
      for (const values of st.raw().all(...padIn(seqs), scope.tenantId, scope.workspaceId) as unknown[][]) {
        const row = rowOf(values);
        bySeq.set(row.seq, row);
      }
      return seqs.map((q) => bySeq.get(q)).filter((r): r is AssetRow => r !== undefined);
    },
    /** Cards (what a search result shows) by seq, scoped, in the order given (missing and foreign seqs dropped); one query. */
    cardsBySeqs(scope: Scope, seqs: number[]): AssetCard[] {
      if (seqs.length === 0) return [];
      // as bySeqs: one rowid probe per seq, the scope checked on the row
      const st = prep(
        `SELECT ${CARD_COLUMNS} FROM assets a WHERE a.seq IN (${marks(seqs.length)}) AND +a.tenant_id = ? AND +a.workspace_id = ?`,
      );
      const bySeq = new Map<number, AssetCard>();
      for (const values of st.raw().all(...padIn(seqs), scope.tenantId, scope.workspaceId) as unknown[][]) {
        const card = cardOfValues(values);
        bySeq.set(card.seq, card);
      }
      return seqs.map((q) => bySeq.get(q)).filter((c): c is AssetCard => c !== undefined);
    },
    /** Highest id of the search change log (migration 0046): results computed at the same head are still current. */
    changeHead: (): number => (s.changeHead.get() as { id: number }).id,
    /** `maxSeq` and `changeHead` in one statement (one read transaction). */
    searchSnapshot(scope: Scope): { maxSeq: number; changeHead: number } {
      const [maxSeq, changeHead] = s.searchSnapshot.get(scope.tenantId, scope.workspaceId) as [number, number];
      return { maxSeq, changeHead };
    },

    /** Assets of the scope still being enriched, and all of them (0 and 0 when none is pending). */
    enrichmentBacklog(scope: Scope): { pending: number; total: number } {
      return s.enrichmentBacklog.get({ t: scope.tenantId, w: scope.workspaceId }) as { pending: number; total: number };
    },

    /** Browse newest first. @returns one page and the total under the filters */
    browse(scope: Scope, f: AssetFilters, offset: number, limit: number): { rows: AssetRow[]; total: number } {
      const w = assetFilterSql(f);
      const base = `FROM assets a WHERE a.tenant_id = ? AND a.workspace_id = ?${w.sql}`;
      const total = (prep(`SELECT count(*) AS n ${base}`).get(scope.tenantId, scope.workspaceId, ...w.params) as { n: number }).n;
      const rows = prep(`SELECT a.* ${base} ORDER BY a.created_at DESC, a.seq DESC LIMIT ? OFFSET ?`).all(
        scope.tenantId,
        scope.workspaceId,
        ...w.params,
        limit,
        offset,
      ) as AssetRow[];
      return { rows, total };
    },
  };
}
export type AssetQueries = ReturnType<typeof createAssetQueries>;
