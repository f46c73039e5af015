import type { z } from 'zod';
import type { StoreScope } from '../db/ports/product-store.ts';
import type { CatalogDeps } from './deps.ts';
import type { AdminGraphqlClient } from './shopify-admin.ts';
import {
  DELETIONS_QUERY,
  DeletionsDataSchema,
  PRODUCTS_QUERY,
  ProductsDataSchema,
  VARIANTS_QUERY,
  VariantsDataSchema,
  productFromNode,
  type VariantNode,
} from './shopify-products-query.ts';

export interface CatalogSyncResult {
  mode: 'full' | 'incremental';
  pages: number;
  upserted: number;
  deleted: number;
  throttled_retries: number;
  embedded: number;
  embed_error: string | null;
  catalog_synced_at: string;
}

/**
 * Pull a store's catalog from the Shopify Admin GraphQL API into the read model.
 *
 * Full sync (first run, or `full`): every product page by cursor (`pageInfo.endCursor`), then products
 * the shop no longer has are deleted. Incremental sync (later runs): only products with
 * `updated_at >= mark` (the newest `updatedAt` seen, so same-second updates are not missed; upserts are
 * idempotent), then `deletionEvents` of type PRODUCT since the last sync remove deleted products.
 * Each page is written in one transaction; marks advance only after the whole sync succeeded, so a
 * failed run is simply repeated. New or changed products are then embedded (failures leave them
 * pending for the background indexer).
 * @param opts.pageSize products per page (Admin API maximum 250)
 * @throws ServiceError provider_failed from the client (nothing after the failing page is written)
 */
export async function syncCatalog(
  deps: CatalogDeps,
  scope: StoreScope,
  client: AdminGraphqlClient,
  opts: {
    full?: boolean;
    pageSize?: number;
    signal?: AbortSignal;
    onProgress?: (products: number, phase: 'products' | 'deletions' | 'embed') => void;
  } = {},
): Promise<CatalogSyncResult> {
  const { products } = deps;
  const state = await products.syncState(scope);
  const startedAt = new Date().toISOString();
  const incremental = !opts.full && !!state?.updated_at_mark;
  const first = Math.min(250, Math.max(1, opts.pageSize ?? 50));
  let after: string | null = null;
  let pages = 0;
  let upserted = 0;
  let deleted: number;
  let mark = state?.updated_at_mark ?? null;
  const seen = new Set<string>();

  do {
    const data: z.infer<typeof ProductsDataSchema> = await client.request(
      PRODUCTS_QUERY,
      { first, after, query: incremental ? `updated_at:>='${mark}'` : null },
      ProductsDataSchema,
      opts.signal,
    );
    pages++;
    const batch = [];
    for (const node of data.products.nodes) {
      const variants: VariantNode[] = [...node.variants.nodes];
      let vAfter = node.variants.pageInfo.hasNextPage ? node.variants.pageInfo.endCursor : null;
      while (vAfter) {
        const more = await client.request(VARIANTS_QUERY, { id: node.id, after: vAfter }, VariantsDataSchema, opts.signal);
        if (!more.product) break;
        variants.push(...more.product.variants.nodes);
        vAfter = more.product.variants.pageInfo.hasNextPage ? more.product.variants.pageInfo.endCursor : null;
      }
      batch.push(productFromNode(node, variants));
      seen.add(node.id);
      if (!mark || node.updatedAt > mark) mark = node.updatedAt;
    }
    await products.upsertMany(scope, batch, 'sync', { at: new Date().toISOString(), replaceCollections: true });
    upserted += batch.length;
    opts.onProgress?.(upserted, 'products');
    after = data.products.pageInfo.hasNextPage ? data.products.pageInfo.endCursor : null;
  } while (after);

  if (incremental) {
    const since = state?.deletions_mark ?? state?.updated_at_mark;
    const gone: string[] = [];
    let dAfter: string | null = null;
    do {
      const data: z.infer<typeof DeletionsDataSchema> = await client.request(
        DELETIONS_QUERY,
        { first: 250, after: dAfter, query: since ? `occurred_at:>='${since}'` : null },
        DeletionsDataSchema,
        opts.signal,
      );
      gone.push(...data.deletionEvents.nodes.filter((e) => e.subjectType === 'PRODUCT').map((e) => e.subjectId));
      dAfter = data.deletionEvents.pageInfo.hasNextPage ? data.deletionEvents.pageInfo.endCursor : null;
    } while (dAfter);
    deleted = await products.deleteByGids(
      scope,
      gone.filter((g) => !seen.has(g)),
    );
  } else {
    // A full listing is the truth: synced products the shop no longer lists are gone. File-imported
    // products with derived ids are left alone (they never came from this shop).
    const stale = (await products.gidsOfStore(scope)).filter((g) => !seen.has(g));
    const synced = await products.byGids(scope, stale);
    deleted = await products.deleteByGids(
      scope,
      stale.filter((g) => synced.get(g)?.source === 'sync'),
    );
  }
  opts.onProgress?.(upserted, 'deletions');

  const at = new Date().toISOString();
  await products.setSyncedAt(scope, at);
  await products.putSyncState(scope, { updated_at_mark: mark, deletions_mark: startedAt, last_full_sync_at: incremental ? null : at });

  let embedded = 0;
  let embedError: string | null = null;
  try {
    embedded = await deps.indexer.embedPending(scope.storeId, {
      ...(opts.signal ? { signal: opts.signal } : {}),
      onProgress: (d) => opts.onProgress?.(d, 'embed'),
    });
  } catch (e) {
    embedError = (e as Error).message;
    deps.log.warn({ store_id: scope.storeId, err: embedError }, 'embedding after sync failed; products stay pending');
  }
  return {
    mode: incremental ? 'incremental' : 'full',
    pages,
    upserted,
    deleted,
    throttled_retries: client.throttledRetries,
    embedded,
    embed_error: embedError,
    catalog_synced_at: at,
  };
}
