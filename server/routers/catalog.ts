import { ROUTER } from '../../shared/actions.ts';
import type { GetProductArgs, GetProductResult, ListProductsArgs, ListProductsResult, Product } from '../../shared/schemas/product.ts';
import type { CatalogDeps } from '../catalog/deps.ts';
import { getProducts } from '../catalog/get.ts';
import { listProducts } from '../catalog/list.ts';
import { storeScopeFor } from '../tenancy/scope.ts';
import { handler, type RouterImpl } from './types.ts';

/** `svc_catalog`: the store-scoped product catalog, `list_products` and `get_product` (spec §4.8, §4.9). */
export function catalogRouter(deps: CatalogDeps): RouterImpl {
  return {
    name: ROUTER.catalog,
    handlers: {
      list_products: handler<ListProductsArgs>(async (args, ctx) => {
        const scope = storeScopeFor(deps.tenancy, ctx.principal, args);
        const page = await listProducts(deps, scope, args, ctx.signal);
        return { structuredContent: page, text: describeProductList(page, args) };
      }),
      get_product: handler<GetProductArgs>(async (args, ctx) => {
        const scope = storeScopeFor(deps.tenancy, ctx.principal, args);
        const result = getProducts(deps, scope, args);
        return { structuredContent: result, text: describeProducts(result) };
      }),
    },
  };
}

function describeProductList(page: ListProductsResult, args: ListProductsArgs): string {
  const what = args.related_to_product_id ? `related to ${args.related_to_product_id}` : args.query ? `for "${args.query}"` : '(browsing by title)';
  const filters = [args.collection && `collection ${args.collection}`, args.product_type && `type ${args.product_type}`, `status ${args.status.join('|')}`].filter(Boolean).join(', ');
  const head = `${page.total} product(s) ${what}, ${filters}; search_mode ${page.search_mode}` +
    `${page.degraded_from ? ` (semantic search unavailable, lexical results returned; degraded_from ${page.degraded_from})` : ''}; catalog synced ${page.catalog_synced_at ?? 'never'}.`;
  const lines = page.items.map((p, i) => `${i + 1}. ${p.handle} — ${p.product_id}`);
  const tail = page.has_more ? `More: call again with cursor "${page.next_cursor}".` : 'No more results.';
  return [head, ...lines, tail, 'Get titles, prices, images and variants with get_product (product_ids); never invent them.'].join('\n');
}

function describeProduct(p: Product): string {
  const variants = p.variants.map((v) =>
    `    - ${v.title} — ${v.id} — price ${v.price}${v.compare_at_price ? ` (compare at ${v.compare_at_price})` : ''}${v.sku ? ` — sku ${v.sku}` : ''} — ${v.available ? 'available' : 'unavailable'}${v.image_url ? ` — image ${v.image_url}` : ''}`);
  const images = p.images.map((im) => `    - ${im.url}${im.alt_text ? ` (alt: ${im.alt_text})` : ''}${im.width ? ` ${im.width}×${im.height}` : ''}`);
  const plans = p.selling_plan_groups.map((g) => `    - ${g.name}: ${g.selling_plans.map((s) => s.name).join(', ')}`);
  return [
    `${p.title} — ${p.id} — handle ${p.handle} — ${p.status} — vendor ${p.vendor || '—'} — type ${p.product_type || '—'} — inventory ${p.total_inventory}`,
    `  tags: ${p.tags.join(', ') || '—'}${p.collections.length ? ` — collections: ${p.collections.join(', ')}` : ''}`,
    `  variants (${p.variants.length}):`, ...variants,
    `  images (${p.images.length}):`, ...images,
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
