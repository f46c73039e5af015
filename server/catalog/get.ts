import type { GetProductArgs, GetProductResult, Product } from '../../shared/schemas/product.ts';
import type { ProductRow, StoreScope } from '../db/ports/product-store.ts';
import { canonicalPrice } from '../domain/catalog.ts';
import type { CatalogDeps } from './deps.ts';

/**
 * `get_product` (spec §4.9, rule 7): hydrate 1–20 products of the selected store in request order
 * (a repeated id is returned once); ids absent from the store, including products of other stores and
 * tenants, are listed in `not_found`. The deprecated `handle` path looks up one product by handle.
 */
export async function getProducts(deps: CatalogDeps, scope: StoreScope, args: GetProductArgs): Promise<GetProductResult> {
  const { products } = deps;
  const rows: ProductRow[] = [];
  const notFound: string[] = [];
  if (args.product_ids) {
    const ids = [...new Set(args.product_ids)];
    const found = await products.byGids(scope, ids);
    for (const id of ids) {
      const r = found.get(id);
      if (r) rows.push(r);
      else notFound.push(id);
    }
  } else if (args.handle) {
    const r = await products.byHandle(scope, args.handle);
    if (r) rows.push(r);
    else notFound.push(args.handle);
  }
  return { products: await hydrate(deps, rows), not_found: notFound, catalog_synced_at: await products.syncedAt(scope) };
}

/** Product rows → spec §2 Product objects (variants, images, collections loaded in three queries). */
export async function hydrate(deps: CatalogDeps, rows: ProductRow[]): Promise<Product[]> {
  const seqs = rows.map((r) => r.seq);
  const group = <T extends { product_seq: number }>(list: T[]): Map<number, T[]> => {
    const m = new Map<number, T[]>();
    for (const x of list) m.set(x.product_seq, [...(m.get(x.product_seq) ?? []), x]);
    return m;
  };
  const [variants, images, collections] = await Promise.all([
    deps.products.variantsOf(seqs).then(group),
    deps.products.imagesOf(seqs).then(group),
    deps.products.collectionsOf(seqs).then(group),
  ]);
  return rows.map((r) => ({
    id: r.gid,
    product_id: r.gid,
    title: r.title,
    handle: r.handle,
    description_html: r.description_html,
    status: r.status,
    total_inventory: r.total_inventory,
    product_type: r.product_type,
    vendor: r.vendor,
    tags: r.tags,
    images: (images.get(r.seq) ?? []).map((i) => ({ url: i.url, alt_text: i.alt_text, width: i.width, height: i.height })),
    variants: (variants.get(r.seq) ?? []).map((v) => ({
      id: v.gid,
      title: v.title,
      price: canonicalPrice(v.price),
      compare_at_price: v.compare_at_price === null ? null : canonicalPrice(v.compare_at_price),
      sku: v.sku,
      available: v.available,
      image_url: v.image_url,
      selected_options: v.selected_options,
    })),
    // as the platform gave them: sync writes them snake_case with `name` and `selling_plans`, file imports none
    selling_plan_groups: r.selling_plan_groups as Product['selling_plan_groups'],
    collections: (collections.get(r.seq) ?? []).map((c) => c.handle),
  }));
}
