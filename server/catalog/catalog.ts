import type { ProductStore, StoreScope } from '../db/ports/product-store.ts';
import type { ProductVectorStore } from '../db/ports/product-vectors.ts';
import type { TenancyStore } from '../db/ports/tenancy-store.ts';
import type { CursorCodec } from '../domain/search/cursor.ts';
import type { Logger } from '../log.ts';
import type { TextEmbedder } from '../providers/embedder-types.ts';
import { ServiceError } from '../errors.ts';
import type { CatalogDeps, CatalogSearchDeps } from './deps.ts';
import { createProductIndexer } from './indexer.ts';
import { warmStore } from './list.ts';
import { adminEndpoint, createAdminGraphqlClient, type AdminGraphqlClient } from './shopify-admin.ts';

/** Shopify Admin API settings from config (`ATELIER_SHOPIFY_*`). */
export interface ShopifySettings {
  shop: string | null;
  accessToken: string | null;
  apiVersion: string;
  /** full endpoint overriding the one derived from shop + version */
  adminUrl: string | null;
  timeoutMs: number;
}

/** The catalog module as the composition root holds it. */
export interface Catalog {
  deps: CatalogDeps;
  /**
   * Replace the embedder the catalog uses (e.g. a reconfigured backend, or a test double at the
   * process boundary). Products are re-embedded in the background under the new model id.
   */
  setEmbedder(embedder: TextEmbedder | null): void;
  /**
   * An Admin GraphQL client for a shop (the configured one unless `shop` is given; `storeShop` is the
   * store's recorded shop domain, used when neither is set).
   * @throws ServiceError invalid_argument when no shop or access token is configured
   */
  adminClient(shop?: string | null, storeShop?: string | null): { client: AdminGraphqlClient; endpoint: string };
  /** Start the background backfill of products without a vector for the current model (serve/start only). */
  start(): void;
  /** Load what a store's first semantic or hybrid search would (catalog/list.ts `warmStore`). @returns false when there is nothing to load */
  warm(scope: StoreScope): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * Build the catalog: the product stores, the embedding indexer (its background backfill of products
 * without a vector for the current model starts with `start`) and the deps the router and CLI use.
 * @param opts.stores the product stores of the configured backend (server/stores.ts; on SQLite they share
 *   one set of product queries so writes and vector partitions stay in step)
 */
export function createCatalog(opts: {
  stores: { products: ProductStore; vectors: ProductVectorStore };
  tenancy: TenancyStore;
  cursors: CursorCodec;
  embedder: TextEmbedder | null;
  shopify: ShopifySettings;
  log: Logger;
  search: CatalogSearchDeps;
}): Catalog {
  let current = opts.embedder;
  const stores = opts.stores;
  const indexer = createProductIndexer(stores.products, stores.vectors, () => current, opts.log);
  const deps: CatalogDeps = {
    products: stores.products,
    vectors: stores.vectors,
    tenancy: opts.tenancy,
    cursors: opts.cursors,
    embedder: () => current,
    indexer,
    log: opts.log,
    search: opts.search,
  };
  return {
    deps,
    start: () => indexer.schedule(null),
    warm: (scope) => warmStore(deps, scope),
    setEmbedder(e) {
      current = e;
      indexer.schedule(null);
    },
    adminClient(shop, storeShop) {
      const sh = opts.shopify;
      const domain = shop ?? sh.shop ?? storeShop ?? null;
      const endpoint = sh.adminUrl ?? (domain ? adminEndpoint(domain, sh.apiVersion) : null);
      if (!endpoint)
        throw new ServiceError(
          'invalid_argument',
          'shop',
          'no shop to sync: pass --shop <domain> or set ATELIER_SHOPIFY_SHOP (e.g. my-shop.myshopify.com)',
        );
      if (!sh.accessToken)
        throw new ServiceError(
          'invalid_argument',
          'ATELIER_SHOPIFY_ACCESS_TOKEN',
          'is required for catalog sync: an Admin API access token with the read_products scope',
        );
      return {
        endpoint,
        client: createAdminGraphqlClient({
          endpoint,
          accessToken: sh.accessToken,
          timeoutMs: sh.timeoutMs,
          log: opts.log.child({ mod: 'shopify' }),
        }),
      };
    },
    close: () => indexer.close(),
  };
}
