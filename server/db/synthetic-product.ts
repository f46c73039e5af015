import type { CatalogProductInput } from '../domain/catalog.ts';

/**
 * A synthetic product for tests that fill a catalog directly through `products.upsertMany`: product
 * number `i` has GID `gid://shopify/Product/<i>`, handle `p<i>` and title `P<i>`; active, no type,
 * vendor, tags, options, images, variants, selling plans or collections. `overrides` replace any field.
 */
export function syntheticProduct(i: number, overrides: Partial<CatalogProductInput> = {}): CatalogProductInput {
  return {
    gid: `gid://shopify/Product/${i}`,
    handle: `p${i}`,
    title: `P${i}`,
    description_html: '',
    status: 'ACTIVE',
    product_type: '',
    vendor: '',
    tags: [],
    options: [],
    images: [],
    variants: [],
    selling_plan_groups: [],
    collections: [],
    total_inventory: null,
    platform_updated_at: null,
    ...overrides,
  };
}
