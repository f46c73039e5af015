import type { AssetQueries } from '../db/assets.ts';
import type { TenancyQueries } from '../db/tenancy.ts';
import type { CursorCodec } from '../domain/cursor.ts';
import type { Logger } from '../log.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import type { UrlBuilder } from '../storage/urls.ts';

/** Import limits taken from config. */
export interface ImportPolicy {
  maxImportBytes: number;
  maxInputPixels: number;
  fetchTimeoutMs: number;
  allowPrivateUrls: boolean;
}

/** Called after an asset is stored, so background enrichment can pick it up. */
export interface AssetStoredHook {
  (asset: { seq: number; tenantId: string; workspaceId: string }): void;
}

/** What the asset use cases need; built once in main.ts. */
export interface LibraryDeps {
  assets: AssetQueries;
  tenancy: TenancyQueries;
  blobs: BlobStore;
  urls: UrlBuilder;
  cursors: CursorCodec;
  policy: ImportPolicy;
  log: Logger;
  /** Hooks run after every new asset (enrichment enqueue). Empty = enrichment is skipped. */
  onAssetStored: AssetStoredHook[];
}
