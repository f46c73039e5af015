import { z } from 'zod';
import { MatchedBySchema, RelevanceSchema } from './asset.ts';
import { CursorSchema, IndexingSchema, ProductGidSchema, TimestampSchema, UuidSchema, VariantGidSchema } from './common.ts';

/** `list_products` search modes (spec §4.8). */
export const ProductSearchModeSchema = z
  .enum(['lexical', 'semantic', 'hybrid'])
  .describe('lexical: words; semantic: meaning; hybrid (default): both');
export type ProductSearchMode = z.infer<typeof ProductSearchModeSchema>;

/** Shopify `ProductStatus`. */
export const ProductStatusSchema = z.enum(['ACTIVE', 'DRAFT', 'ARCHIVED']).describe('Shopify ProductStatus');
export type ProductStatus = z.infer<typeof ProductStatusSchema>;

const scopeFields = {
  workspace_id: UuidSchema.optional(),
  store_id: UuidSchema.optional().describe('when the workspace has several stores'),
};

/** `list_products` args (spec §4.8, rule 5: query xor related_to_product_id). */
export const ListProductsArgsSchema = z
  .strictObject({
    ...scopeFields,
    query: z
      .string()
      .trim()
      .max(500, 'must be at most 500 characters')
      .optional()
      .describe('words or a description; omit to browse by title'),
    search_mode: ProductSearchModeSchema.default('hybrid'),
    related_to_product_id: ProductGidSchema.optional().describe('products like this one (not with query)'),
    collection: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(255)
      .optional()
      .describe('collection handle; a handle the store does not have answers not_found with near handles'),
    product_type: z.string().trim().min(1, 'must not be empty').max(255).optional(),
    status: z.array(ProductStatusSchema).min(1, 'must hold at least one status').max(3).default(['ACTIVE']),
    limit: z.number().int('must be an integer').min(1, 'must be 1–50').max(50, 'must be 1–50').default(20),
    cursor: CursorSchema.optional(),
  })
  .superRefine((v, ctx) => {
    if (v.query !== undefined && v.query.length > 0 && v.related_to_product_id !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['related_to_product_id'],
        message: 'query and related_to_product_id are mutually exclusive (rule 5); pass one of them',
      });
    }
  });
export type ListProductsArgs = z.infer<typeof ListProductsArgsSchema>;

/** A product reference (spec §2): `product_id` and `handle`, with how it matched (null when browsing). */
export const ProductRefSchema = z.object({
  product_id: ProductGidSchema,
  handle: z.string(),
  relevance: RelevanceSchema,
  matched_by: MatchedBySchema,
});

export const ListProductsResultSchema = z.object({
  items: z.array(ProductRefSchema).describe('matching product references only, best first; hydrate with get_product'),
  total: z.number().int().describe('products matching, all pages (never counts suggestions)'),
  total_is_estimate: z
    .boolean()
    .describe(
      'true when a very common word matched so many products that the server stopped counting: total is then an estimate, and the ranking covers the most recent of those matches',
    ),
  suggestions: z
    .array(ProductRefSchema)
    .describe(
      'first page only, when the query matched nothing or very little: the nearest products that are NOT matches (relevance < 0.5); empty otherwise',
    ),
  corrected_query: z
    .string()
    .nullable()
    .describe(
      'the query actually searched after correcting misspelt words; a real word the store lacks is respelt only as a guess, whose finds are suggestions; null when nothing was corrected',
    ),
  expanded_terms: z.array(z.string()).describe('concept words (synonyms, narrower or broader terms) added to the search; empty when none'),
  returned: z.number().int().describe('items in this page'),
  has_more: z.boolean(),
  next_cursor: z.string().nullable().describe('opaque; pass as cursor for the next page; null on the last page'),
  search_mode: ProductSearchModeSchema.describe(
    'mode actually used; browsing (no query, no related_to_product_id) ranks nothing and reports lexical',
  ),
  degraded_from: ProductSearchModeSchema.nullable().describe(
    'requested mode when semantic search was unavailable and lexical results were returned (rule 9)',
  ),
  catalog_synced_at: TimestampSchema.nullable().describe('last catalog sync or import of the store (ISO 8601 UTC); null if never'),
  indexing: IndexingSchema.optional(),
});
export type ListProductsResult = z.infer<typeof ListProductsResultSchema>;

/** `get_product` args (spec §4.9, rule 7). `handle` is the deprecated single-product path. */
export const GetProductArgsSchema = z
  .strictObject({
    ...scopeFields,
    product_ids: z
      .array(ProductGidSchema)
      .min(1, 'must hold 1–20 product GIDs (rule 7)')
      .max(20, 'must hold 1–20 product GIDs (rule 7)')
      .optional()
      .describe('from list_products; results keep this order'),
    handle: z
      .string()
      .trim()
      .min(1)
      .max(255)
      .optional()
      .describe('deprecated: one product by handle; use product_ids')
      .meta({ deprecated: true }),
  })
  .superRefine((v, ctx) => {
    if (v.product_ids === undefined && v.handle === undefined) {
      ctx.addIssue({ code: 'custom', path: ['product_ids'], message: 'is required: 1–20 product GIDs (rule 7)' });
    }
    if (v.product_ids !== undefined && v.handle !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['handle'], message: 'pass either product_ids or the deprecated handle, not both' });
    }
  });
export type GetProductArgs = z.infer<typeof GetProductArgsSchema>;

export const ProductImageSchema = z.object({
  url: z.string().describe('image URL on the platform CDN'),
  alt_text: z.string(),
  width: z.number().int().nullable().describe('px; null when the source gave none and the image could not be measured'),
  height: z.number().int().nullable().describe('px; null as for width'),
});

export const SelectedOptionSchema = z.object({ name: z.string(), value: z.string() });

export const VariantSchema = z.object({
  id: VariantGidSchema,
  title: z.string(),
  price: z.string().describe('decimal string with at least two decimal places, e.g. "19.99", "80.00"'),
  compare_at_price: z.string().nullable().describe('decimal string like price, or null'),
  sku: z.string(),
  available: z.boolean(),
  image_url: z.string().nullable(),
  selected_options: z.array(SelectedOptionSchema),
});

/** Selling plan groups as the platform gives them (subscription terms); fields beyond these pass through. */
export const SellingPlanGroupSchema = z.looseObject({
  name: z.string(),
  selling_plans: z.array(z.looseObject({ name: z.string() })),
});

export const ProductSchema = z.object({
  id: ProductGidSchema,
  product_id: ProductGidSchema,
  title: z.string(),
  handle: z.string(),
  description_html: z.string(),
  status: ProductStatusSchema,
  total_inventory: z.number().int(),
  product_type: z.string(),
  vendor: z.string(),
  tags: z.array(z.string()),
  images: z.array(ProductImageSchema),
  variants: z.array(VariantSchema),
  selling_plan_groups: z.array(SellingPlanGroupSchema),
  collections: z.array(z.string()).describe('handles of the collections holding the product'),
});
export type Product = z.infer<typeof ProductSchema>;

export const GetProductResultSchema = z.object({
  products: z.array(ProductSchema).describe('found products, in request order'),
  not_found: z.array(z.string()).describe('requested ids (or the handle) absent from the selected store'),
  catalog_synced_at: TimestampSchema.nullable(),
});
export type GetProductResult = z.infer<typeof GetProductResultSchema>;
