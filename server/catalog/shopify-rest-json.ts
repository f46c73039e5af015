import { z } from 'zod';
import { isDecimalString, type CatalogProductInput } from '../domain/catalog.ts';
import { fromZodError, ServiceError } from '../errors.ts';

const id = z.union([z.number().int().nonnegative(), z.string().regex(/^\d+$/)]).transform(String);
const money = z.union([z.string(), z.number()]).transform(String).refine(isDecimalString, 'must be a decimal amount like 19.99');

/** One product of the Admin REST API (`GET /admin/api/<version>/products.json`), the fields we read. */
const RestProductSchema = z.object({
  id,
  title: z.string().min(1),
  handle: z.string().min(1),
  body_html: z.string().nullable().optional(),
  vendor: z.string().nullable().optional(),
  product_type: z.string().nullable().optional(),
  status: z.enum(['active', 'draft', 'archived']).optional(),
  tags: z.union([z.string(), z.array(z.string())]).optional(),
  updated_at: z.string().nullable().optional(),
  options: z.array(z.object({ name: z.string(), values: z.array(z.string()).optional() })).optional(),
  variants: z
    .array(
      z.object({
        id,
        title: z.string(),
        price: money,
        compare_at_price: money.nullable().optional(),
        sku: z.string().nullable().optional(),
        inventory_quantity: z.number().int().nullable().optional(),
        inventory_management: z.string().nullable().optional(),
        inventory_policy: z.string().nullable().optional(),
        image_id: id.nullable().optional(),
        option1: z.string().nullable().optional(),
        option2: z.string().nullable().optional(),
        option3: z.string().nullable().optional(),
      }),
    )
    .optional(),
  images: z
    .array(
      z.object({
        id: id.optional(),
        src: z.string().url(),
        alt: z.string().nullable().optional(),
        width: z.number().int().nullable().optional(),
        height: z.number().int().nullable().optional(),
        position: z.number().int().optional(),
      }),
    )
    .optional(),
});

/** The dump: `{ "products": [...] }` as the REST endpoint returns it, or a bare array of products. */
const RestDumpSchema = z.union([
  z.object({ products: z.array(RestProductSchema) }),
  z.array(RestProductSchema).transform((products) => ({ products })),
]);

/**
 * Parse an Admin REST `products.json` dump (https://shopify.dev/docs/api/admin-rest/latest/resources/product).
 * Numeric ids become GIDs (`gid://shopify/Product/<id>`), so a later Admin GraphQL sync of the same
 * shop updates these products instead of duplicating them.
 * @throws ServiceError invalid_argument with the JSON path of the first bad field (`<file>.products[3].variants[0].price`)
 */
export function parseShopifyProductsJson(text: string, source: string): CatalogProductInput[] {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new ServiceError('invalid_argument', source, `is not valid JSON: ${(e as Error).message}`, { cause: e });
  }
  const parsed = RestDumpSchema.safeParse(raw);
  if (!parsed.success) throw fromZodError(parsed.error, source);
  return parsed.data.products.map((p) => {
    const optionNames = (p.options ?? []).map((o) => o.name);
    const images = [...(p.images ?? [])].sort((a, b) => (a.position ?? 0) - (b.position ?? 0));
    const imageById = new Map(images.filter((i) => i.id).map((i) => [i.id!, i.src]));
    const tags = Array.isArray(p.tags) ? p.tags : (p.tags ?? '').split(',');
    return {
      gid: `gid://shopify/Product/${p.id}`,
      handle: p.handle,
      title: p.title,
      description_html: p.body_html ?? '',
      status: (p.status ?? 'active').toUpperCase() as CatalogProductInput['status'],
      product_type: p.product_type ?? '',
      vendor: p.vendor ?? '',
      tags: tags.map((t) => t.trim()).filter(Boolean),
      options: (p.options ?? []).map((o) => ({ name: o.name, values: o.values ?? [] })),
      images: images.map((i) => ({ url: i.src, alt_text: i.alt ?? '', width: i.width ?? null, height: i.height ?? null })),
      variants: (p.variants ?? []).map((v) => {
        const values = [v.option1, v.option2, v.option3];
        const tracked = !!v.inventory_management;
        return {
          gid: `gid://shopify/ProductVariant/${v.id}`,
          title: v.title,
          price: v.price,
          compare_at_price: v.compare_at_price ?? null,
          sku: v.sku ?? '',
          available: !tracked || (v.inventory_quantity ?? 0) > 0 || v.inventory_policy === 'continue',
          inventory_quantity: v.inventory_quantity ?? null,
          image_url: v.image_id ? (imageById.get(v.image_id) ?? null) : null,
          selected_options: optionNames.map((name, k) => ({ name, value: values[k] ?? '' })).filter((o) => o.value !== ''),
        };
      }),
      selling_plan_groups: [],
      collections: [],
      total_inventory: null,
      platform_updated_at: p.updated_at ?? null,
    };
  });
}
