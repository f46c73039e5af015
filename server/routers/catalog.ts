import { ROUTER } from '../../shared/actions.ts';
import type { GetProductResult, ListProductsArgs, ListProductsResult, Product } from '../../shared/schemas/product.ts';
import type { CatalogDeps } from '../catalog/deps.ts';
import { getProducts } from '../catalog/get.ts';
import { listProducts } from '../catalog/list.ts';
import { storeScopeFor } from '../tenancy/scope.ts';
import { matchNote, queryNote } from './text.ts';
import { defineRouter, type RouterImpl } from './types.ts';

/** `svc_catalog`: the store-scoped product catalog, `list_products` and `get_product` (spec §4.8, §4.9). */
export function catalogRouter(deps: CatalogDeps): RouterImpl<typeof ROUTER.catalog> {
  return defineRouter(ROUTER.catalog, {
    list_products: async (args, ctx) => {
      const scope = await storeScopeFor(deps.tenancy, ctx.principal, args);
      const page = await listProducts(deps, scope, args, ctx.signal);
      return { structuredContent: page, text: describeProductList(page, args) };
    },
    get_product: async (args, ctx) => {
      const scope = await storeScopeFor(deps.tenancy, ctx.principal, args);
      const result = await getProducts(deps, scope, args);
      return { structuredContent: result, text: describeProducts(result) };
    },
  });
}

function describeProductList(page: ListProductsResult, args: ListProductsArgs): string {
  const what = args.related_to_product_id
    ? `related to ${args.related_to_product_id}`
    : args.query
      ? `for "${args.query}"`
      : '(browsing by title)';
  const filters = [
    args.collection && `collection ${args.collection}`,
    args.product_type && `type ${args.product_type}`,
    `status ${args.status.join('|')}`,
  ]
    .filter(Boolean)
    .join(', ');
  const mode = `search_mode ${page.search_mode}${page.degraded_from ? ` (semantic search unavailable, lexical results returned; degraded_from ${page.degraded_from})` : ''}; catalog synced ${page.catalog_synced_at ?? 'never'}`;
  const line = (p: ListProductsResult['items'][number], i: number): string => `${i + 1}. ${p.handle} — ${p.product_id}${matchNote(p)}`;
  if (page.total === 0 && (args.query || args.related_to_product_id)) {
    // while products are being embedded, a no-match may only mean "not searchable by meaning yet"
    const verdict = page.indexing
      ? ` Indexing under way: ${page.indexing.pending} of ${page.indexing.total} products are still being embedded, so it may be among them. Retry this search in a few seconds before concluding the store does not sell it.`
      : ' The store does not sell it: do not present other products as if they were it.';
    return [
      `No product matches ${what} (${filters}; ${mode}).${queryNote(page, false)}${verdict}`,
      ...(page.suggestions.length ? ['Nearest products, NOT matches:', ...page.suggestions.map(line)] : []),
    ].join('\n');
  }
  const head = `${page.total_is_estimate ? 'About ' : ''}${page.total} product(s) ${what}, ${filters}; ${mode}.${queryNote(page)}`;
  const tail = page.has_more ? `More: call again with cursor "${page.next_cursor}".` : 'No more results.';
  return [
    head,
    ...page.items.map(line),
    ...(page.suggestions.length ? ['Nearest other products, NOT matches:', ...page.suggestions.map(line)] : []),
    tail,
    'Get titles, prices, images and variants with get_product (product_ids); never invent them.',
  ].join('\n');
}

/**
 * One product for the model: a head line, tags, variants and images. A variant's image is named by its
 * number in the image list when it is one of them (most are), so each URL is written once.
 */
function describeProduct(p: Product): string {
  const imageNo = new Map(p.images.map((im, i) => [im.url, i + 1]));
  const variants = p.variants.map((v) => {
    const img = v.image_url ? (imageNo.has(v.image_url) ? ` — image ${imageNo.get(v.image_url)}` : ` — image ${v.image_url}`) : '';
    return `    - ${v.title} — ${v.id} — price ${v.price}${v.compare_at_price ? ` (compare at ${v.compare_at_price})` : ''}${v.sku ? ` — sku ${v.sku}` : ''} — ${v.available ? 'available' : 'unavailable'}${img}`;
  });
  const images = p.images.map(
    (im, i) => `    ${i + 1}. ${im.url}${im.alt_text ? ` (alt: ${im.alt_text})` : ''}${im.width ? ` ${im.width}×${im.height}` : ''}`,
  );
  const plans = p.selling_plan_groups.map((g) => `    - ${g.name}: ${g.selling_plans.map((s) => s.name).join(', ')}`);
  return [
    `${p.title} — ${p.id} — handle ${p.handle} — ${p.status} — vendor ${p.vendor || '—'} — type ${p.product_type || '—'} — inventory ${p.total_inventory}`,
    `  tags: ${p.tags.join(', ') || '—'}${p.collections.length ? ` — collections: ${p.collections.join(', ')}` : ''}`,
    `  variants (${p.variants.length}):`,
    ...variants,
    `  images (${p.images.length}):`,
    ...images,
    ...(plans.length ? ['  selling plan groups:', ...plans] : []),
  ].join('\n');
}

function describeProducts(r: GetProductResult): string {
  return [
    `${r.products.length} product(s)${r.not_found.length ? `; not found in this store: ${r.not_found.join(', ')}` : ''}.`,
    ...r.products.map(describeProduct),
    'Full description_html is in structuredContent.',
  ].join('\n');
}
