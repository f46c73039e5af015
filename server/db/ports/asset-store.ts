import type { Orientation } from '../../../shared/schemas/asset.ts';
import type { Scope } from '../../domain/scope.ts';
import type { HoldSettlement } from './credit-store.ts';
import type { QuotaCheck, StorageUsage } from './storage-quota.ts';

/**
 * What a generated asset records of its making (server/assets/generate.ts): `prompt`, `style`, `purpose`,
 * `provider`, `model`, `operation`, `quality`, `aspect_ratio`, `image_size`, `output_format`, the
 * transparency asked for and found, brand colours and tone, `reference_images` and `mask_url` (URLs),
 * `provider_params`, `revised_prompt`, `watermark`, `credit_cost` (credits) and `generated_at` (ISO 8601).
 * Stored as written and read back unvalidated (rows of older versions may lack keys): readers check the
 * type of each value they use.
 */
export type AssetProvenance = Record<string, unknown>;

/** One row of `assets` (shapes and units: see `AssetStore`). */
export interface AssetRow {
  seq: number;
  id: string;
  tenant_id: string;
  workspace_id: string;
  kind: 'image' | 'video' | 'svg';
  format: string;
  mime_type: string;
  width: number | null;
  height: number | null;
  size_bytes: number;
  sha256: string;
  /** public key of the stored original in this tenant's URLs (`/a/<blob_key>.<ext>`, server/db/blob-keys.ts) */
  blob_key: string;
  source_sha256: string;
  converted_from: string | null;
  name: string;
  /** readable words of the file name (domain/media/alt-text.ts nameWords), indexed with it; null until computed */
  name_words: string | null;
  alt_text: string | null;
  /** the user's tags, in the order given */
  tags: string[];
  /** tags enrichment derived (domain/media/alt-text.ts `autoTags`: colour names, `monochrome`, `text`, `transparent`, `vector`); [] until analysed */
  auto_tags: string[];
  purpose: string | null;
  category: string | null;
  subtype: string | null;
  /** names of the fields the user authored (`filename`, `alt_text`, `tags`, `purpose`), which enrichment never overwrites */
  user_fields: string[];
  ocr_text: string | null;
  source: string;
  source_url: string | null;
  /** how a generated asset was made; null for every other source */
  provenance: AssetProvenance | null;
  processing_status: 'ready' | 'failed';
  enrichment_status: 'pending' | 'running' | 'done' | 'failed' | 'skipped';
  /** ISO 8601 UTC with milliseconds (`2026-03-01T10:00:00.123Z`); a `NewAsset` must give it in that form */
  created_at: string;
}

export interface RenditionRow {
  asset_seq: number;
  role: 'thumbnail' | 'fallback' | 'webp';
  width: number;
  height: number;
  format: string;
  sha256: string;
  /** public key of the rendition's blob in the tenant's URLs, as `AssetRow.blob_key` */
  blob_key: string;
  size_bytes: number;
}

/** A row to insert; the store computes the public blob keys (`blob_key`) from the tenant's secret. */
export type NewAsset = Omit<AssetRow, 'seq' | 'auto_tags' | 'ocr_text' | 'processing_status' | 'blob_key'> & {
  renditions: Omit<RenditionRow, 'asset_seq' | 'blob_key'>[];
};

/** Filters shared by every search mode; all optional. `maxSeq` is the cursor's snapshot bound. */
export interface AssetFilters {
  kind?: string | undefined;
  category?: string | undefined;
  subtype?: string | undefined;
  orientation?: Orientation | undefined;
  maxSeq?: number | undefined;
  excludeSeq?: number | undefined;
}

/**
 * What a search result shows of an asset (`toAsset`): the card's columns and its thumbnail rendition
 * (the narrowest; null when it has none). Read by `cardsBySeqs` in one query, without the columns only
 * detail views need (OCR text, provenance, user fields, source). Blobs are named by their public key in the
 * tenant's URLs (`key`: the row's `blob_key`, server/db/blob-keys.ts), 22 characters.
 */
export type AssetCard = Pick<
  AssetRow,
  | 'seq'
  | 'id'
  | 'kind'
  | 'format'
  | 'width'
  | 'height'
  | 'name'
  | 'alt_text'
  | 'tags'
  | 'auto_tags'
  | 'purpose'
  | 'category'
  | 'subtype'
  | 'enrichment_status'
> & { key: string; thumbnail: { key: string; format: string } | null };

/** Bytes an asset adds to its tenant's storage usage: its original and its renditions. */
export function newAssetBytes(a: Pick<NewAsset, 'size_bytes' | 'renditions'>): number {
  return a.renditions.reduce((n, r) => n + r.size_bytes, a.size_bytes);
}

/** The user-editable metadata of an asset, replaced as a whole by `updateMetadata`. */
export interface AssetMetadataUpdate {
  name: string;
  /** readable words of the name (domain/media/alt-text.ts nameWords) */
  name_words: string;
  /** the user's alt text, null for none, or `{ machine: true }` for the machine alt text enrichment keeps (null when not analysed yet) */
  alt_text: string | null | { machine: true };
  tags: string[];
  purpose: string | null;
  category: string | null;
  subtype: string | null;
  /** names of the fields the user authored: filename, alt_text, tags, purpose */
  user_fields: string[];
}

/**
 * Port: the asset aggregate (an asset row with its renditions) as the use cases need it. Every method
 * that takes a `Scope` takes it first and never returns or changes a row of another tenant or workspace
 * (it behaves as missing); the unscoped methods (`bySeq`, `renditions`, `blobReferenced`,
 * `blobByKey`, `changeHead`, `backfillNameWords`, `backfillBlobKeys`) are for callers that already hold a verified seq or
 * serve content-addressed blobs. Rows are plain values, the same on every backend, whatever its columns
 * hold: lists (`tags`, `auto_tags`, `user_fields`) as string arrays, `provenance` as an object, timestamps
 * (`created_at`) as ISO 8601 UTC strings with milliseconds, sizes in bytes and dimensions in px as numbers;
 * each adapter converts its own columns. A `seq` is never reused, even after its asset is deleted (cursor
 * snapshots are `seq <= max`). Implementations: SQLite (server/db/sqlite/assets.ts) and PostgreSQL
 * (server/db/postgres/assets.ts); both pass server/db/contract/asset-store-contract.ts. Reads throw
 * SyntaxError on a row whose stored JSON is malformed (only raw SQL can write one).
 */
export interface AssetStore {
  /**
   * Insert an asset and its renditions in one transaction, with the public key of each blob for the
   * asset's tenant (`blob_key`: HMAC of its sha256 under the tenant's secret, made on first use); with `o.settle`, that transaction also settles
   * the credit hold of the generation that made it (ledger charge naming `a.id`, hold deleted; a hold
   * already settled charges nothing more), so a crash never leaves the asset without its charge. The credit
   * tables are always in the same database as the asset tables.
   * With `o.quota`, the same transaction first checks the tenant's storage quota (ports/storage-quota.ts)
   * against `newAssetBytes(a)`, serialised with the tenant's other checked writes.
   * @returns the new seq (greater than every seq used before in the database)
   * @throws the driver's unique-violation error (`isUniqueViolation`) when the workspace already holds
   *   an asset of the same `source_sha256` or the id exists; nothing is written (nor charged) then
   * @throws QuotaExceededError when `o.quota` refuses it; nothing is written (nor charged)
   */
  insert(a: NewAsset, o?: { settle?: HoldSettlement | undefined; quota?: QuotaCheck | undefined }): Promise<number>;
  /**
   * A tenant's storage usage at `nowMs` (epoch ms), bytes, as `o.quota` of `insert` counts it (without the
   * staged bytes of upload `exceptUploadId`).
   */
  storageUsage(tenantId: string, nowMs: number, exceptUploadId?: string): Promise<StorageUsage>;
  /** The asset with public id `id` (case-insensitive) of the scope. */
  byId(scope: Scope, id: string): Promise<AssetRow | undefined>;
  /** Internal lookup by seq for background jobs that already hold a verified seq. */
  bySeq(seq: number): Promise<AssetRow | undefined>;
  /** The asset of the scope whose received bytes had this sha256 (dedupe key). */
  bySourceSha(scope: Scope, sha: string): Promise<AssetRow | undefined>;
  /** The oldest asset of the scope whose stored file (`sha256`, after any conversion) has this sha256. */
  byStoredSha(scope: Scope, sha: string): Promise<AssetRow | undefined>;
  /** Assets of the scope with this file name, newest seq first. */
  byName(scope: Scope, name: string): Promise<AssetRow[]>;
  /** Renditions of an asset, ordered by role, width. */
  renditions(seq: number): Promise<RenditionRow[]>;
  /** Whether a blob (original or rendition) belongs to an asset of the scope (CDN URL → asset scoping). */
  ownsBlob(scope: Scope, sha: string): Promise<boolean>;
  /** Replace the user-editable metadata of one asset of the scope (a foreign or missing seq changes nothing). */
  updateMetadata(scope: Scope, seq: number, m: AssetMetadataUpdate): Promise<void>;
  /**
   * Delete assets of the scope in one transaction; renditions and derived rows go with them. Blob bytes
   * are left to the GC. @returns how many were deleted (foreign or missing seqs count 0)
   */
  deleteMany(scope: Scope, seqs: number[]): Promise<number>;
  /** Fill `name_words` where it is null (rows written before it existed), in batches of 500. @returns rows updated */
  backfillNameWords(words: (name: string) => string): Promise<number>;
  /** Whether any asset or rendition of any scope references a blob (the CDN serves only those). */
  blobReferenced(sha: string): Promise<boolean>;
  /**
   * The blob a public key (`/a/<key>.<ext>`, 22 characters, server/db/blob-keys.ts) names: the sha256 and
   * stored format (`jpeg`, `png`, `svg` …) of an asset or rendition row holding that key, or null when
   * none does (so a deleted asset's URL stops answering unless the same tenant still holds the bytes:
   * a key is per tenant). Exact, case-sensitive match; one probe of each `blob_key` index.
   */
  blobByKey(key: string): Promise<{ sha256: string; format: string } | null>;
  /**
   * Fill the public blob keys (`blob_key`) of asset and rendition rows written before they existed
   * (SQLite migration 0062 / PostgreSQL 0020), making the missing tenant secrets (crypto.randomBytes);
   * run when the server starts, before it serves. @returns rows updated
   */
  backfillBlobKeys(): Promise<number>;
  /** Highest seq of the scope (0 when empty): the snapshot bound of a new result set. */
  maxSeq(scope: Scope): Promise<number>;
  /** The workspaces holding assets, the one with the newest asset first, at most `limit` (what a starting server loads first). */
  recentScopes(limit: number): Promise<Scope[]>;
  /** Rows by seq, scoped, in the order given (missing and foreign seqs dropped). */
  bySeqs(scope: Scope, seqs: number[]): Promise<AssetRow[]>;
  /**
   * Cards (what a search result shows: `AssetCard`) by seq, scoped, in the order given (missing and
   * foreign seqs dropped).
   */
  cardsBySeqs(scope: Scope, seqs: number[]): Promise<AssetCard[]>;
  /** Highest id of the search change log: grows with every insert, update and delete of an asset. */
  changeHead(): Promise<number>;
  /**
   * How much of the workspace enrichment is still analysing (index state of a search, issue 33): assets
   * whose `enrichment_status` is pending or running, and all assets of the workspace. One statement on a
   * partial index of the unfinished rows (migration 0060 / PostgreSQL 0018); the total is counted only
   * while something is pending.
   * @returns `{ pending, total }`; `{ pending: 0, total: 0 }` when nothing is pending
   */
  enrichmentBacklog(scope: Scope): Promise<{ pending: number; total: number }>;
  /** `maxSeq` and `changeHead` in one read: what a new result set starts from. */
  searchSnapshot(scope: Scope): Promise<{ maxSeq: number; changeHead: number }>;
  /** Browse newest first (created_at, then seq, descending) under filters. @returns one page and the total under the filters */
  browse(scope: Scope, f: AssetFilters, offset: number, limit: number): Promise<{ rows: AssetRow[]; total: number }>;
}
