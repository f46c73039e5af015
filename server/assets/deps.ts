import type { AssetFilters, AssetStore } from '../db/ports/asset-store.ts';
import type { SynonymStore } from '../db/ports/synonym-store.ts';
import type { LexicalIndex } from '../domain/search/lexical.ts';
import type { Scope } from '../domain/scope.ts';
import type { Thesaurus } from '../domain/search/concepts.ts';
import type { TenancyStore } from '../db/ports/tenancy-store.ts';
import type { CursorCodec } from '../domain/search/cursor.ts';
import type { Logger } from '../log.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import type { UrlBuilder } from '../storage/urls.ts';
import type { TestHooks } from '../test-hooks.ts';
import { IMAGE_PRIORITY, type ImagePool } from './image-pool.ts';
import type { ImageWork } from './media.ts';

/** Import limits taken from config. */
export interface ImportPolicy {
  maxImportBytes: number;
  maxInputPixels: number;
  fetchTimeoutMs: number;
  allowPrivateUrls: boolean;
  /** storage quota of each tenant, bytes (0 = unlimited); server/assets/quota.ts */
  tenantQuotaBytes: number;
}

/** Called after an asset is stored, so background enrichment can pick it up. */
export interface AssetStoredHook {
  (asset: { seq: number; tenantId: string; workspaceId: string }): void | Promise<void>;
}

/** What the asset use cases need; built once in main.ts. */
export interface LibraryDeps {
  assets: AssetStore;
  tenancy: TenancyStore;
  blobs: BlobStore;
  urls: UrlBuilder;
  cursors: CursorCodec;
  policy: ImportPolicy;
  /** bounded image work (decode, resize, encode, HEIC) and import admission */
  images: ImagePool;
  log: Logger;
  /** Hooks run after every new asset (enrichment enqueue). Empty = enrichment is skipped. */
  onAssetStored: AssetStoredHook[];
  /** TEST ONLY pause points (server/test-hooks.ts); absent or no-op outside tests */
  testHooks?: TestHooks;
  /**
   * the asset lexical index of a request's scope and filters, the lexical planner's port: SQLite FTS5
   * (db/sqlite/lexical-index.ts `createLexicalIndexes(db)`) or PostgreSQL (db/postgres/lexical-index.ts)
   */
  lexical: { assets(scope: Scope, f: AssetFilters, head?: number): LexicalIndex };
  /** operator synonym lists */
  synonyms: SynonymStore;
  /** WordNet, loaded on first use (null when it cannot be loaded: concept expansion is then off) */
  thesaurus: () => Promise<Thesaurus | null>;
}

/** The image pool bound to one priority, as the media functions take it. */
export function imageWork(pool: ImagePool, priority: (typeof IMAGE_PRIORITY)[keyof typeof IMAGE_PRIORITY]): ImageWork {
  return {
    run: (op) => pool.run(op, priority),
    decodeHeic: (bytes) => pool.decodeHeic(bytes, priority),
    renderSvg: (svg, canvasWidth, targetWidth, maxPixels) => pool.renderSvg(svg, canvasWidth, targetWidth, maxPixels),
    sanitizeSvg: (svg) => pool.sanitizeSvg(svg),
    nice: pool.nice,
    timeoutS: pool.timeoutS,
  };
}
