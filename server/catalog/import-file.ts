import path from 'node:path';
import type { StoreScope } from '../db/ports/product-store.ts';
import type { CatalogProductInput } from '../domain/catalog.ts';
import { ServiceError } from '../errors.ts';
import type { CatalogDeps } from './deps.ts';
import { measureProductImages, type ImageMeasurePolicy, type ImageMeasureReport } from './image-dimensions.ts';
import { parseShopifyCsv } from './shopify-csv.ts';
import { parseShopifyProductsJson } from './shopify-rest-json.ts';

export interface CatalogImportResult {
  file: string;
  format: 'csv' | 'json';
  products: number;
  created: number;
  updated: number;
  variants: number;
  /** products embedded for semantic search now */
  embedded: number;
  /** why embedding failed (products stay pending and are embedded later); null when it worked or no embedder is set */
  embed_error: string | null;
  /** images the file gave no width/height for, and how many of them were measured by fetching them; null when not measured */
  image_sizes: ImageMeasureReport | null;
}

const BATCH = 500;

/**
 * Import a Shopify product CSV export or an Admin REST `products.json` dump into a store's read model
 * (format chosen by extension, else by the first character). The whole file is validated before the
 * first write; products are upserted by GID, so re-importing updates them. With `collection`, every
 * product is added to that collection (created with the given handle). Then `catalog_synced_at` is set
 * and the new or changed products are embedded with the current embedder. With `measureImages`, images
 * the file gives no size for (every image of a product CSV) are fetched and measured before the write
 * (catalog/image-dimensions.ts); those that cannot be fetched keep null width/height.
 * @param file name (for errors and format detection) and contents
 * @throws ServiceError invalid_argument naming the file, row/path and rule
 */
export async function importCatalogFile(
  deps: CatalogDeps,
  scope: StoreScope,
  file: { name: string; text: string },
  opts: {
    collection?: { handle: string; title: string };
    onProgress?: (done: number, total: number, phase: 'write' | 'embed') => void;
    signal?: AbortSignal;
    measureImages?: ImageMeasurePolicy;
  } = {},
): Promise<CatalogImportResult> {
  const ext = path.extname(file.name).toLowerCase();
  const format: 'csv' | 'json' =
    ext === '.json' || (ext !== '.csv' && file.text.trimStart().startsWith('{')) || file.text.trimStart().startsWith('[') ? 'json' : 'csv';
  const parsed: CatalogProductInput[] =
    format === 'json' ? parseShopifyProductsJson(file.text, file.name) : parseShopifyCsv(file.text, file.name);
  if (parsed.length === 0) throw new ServiceError('invalid_argument', file.name, 'holds no products');
  if (opts.collection) {
    const handle = opts.collection.handle.toLowerCase();
    if (!/^[a-z0-9][a-z0-9-]*$/.test(handle))
      throw new ServiceError('invalid_argument', 'collection', 'must be a handle: lower-case letters, digits and hyphens');
    for (const p of parsed) p.collections.push({ handle, title: opts.collection.title, gid: null });
  }
  const imageSizes = opts.measureImages ? await measureProductImages(parsed, opts.measureImages, deps.log) : null;
  const existing = new Set(await deps.products.gidsOfStore(scope));
  const at = new Date().toISOString();
  for (let i = 0; i < parsed.length; i += BATCH) {
    await deps.products.upsertMany(scope, parsed.slice(i, i + BATCH), format, { at, replaceCollections: false });
    opts.onProgress?.(Math.min(i + BATCH, parsed.length), parsed.length, 'write');
  }
  await deps.products.setSyncedAt(scope, at);
  const created = parsed.filter((p) => !existing.has(p.gid)).length;
  let embedded = 0;
  let embedError: string | null = null;
  try {
    embedded = await deps.indexer.embedPending(scope.storeId, {
      ...(opts.signal ? { signal: opts.signal } : {}),
      onProgress: (d) => opts.onProgress?.(d, parsed.length, 'embed'),
    });
  } catch (e) {
    embedError = (e as Error).message;
    deps.log.warn({ store_id: scope.storeId, err: embedError }, 'embedding after import failed; products stay pending');
  }
  return {
    file: file.name,
    format,
    products: parsed.length,
    created,
    updated: parsed.length - created,
    variants: parsed.reduce((n, p) => n + p.variants.length, 0),
    embedded,
    embed_error: embedError,
    image_sizes: imageSizes,
  };
}
