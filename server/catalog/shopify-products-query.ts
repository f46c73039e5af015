import { z } from 'zod';
import { isDecimalString, type CatalogProductInput } from '../domain/catalog.ts';

/**
 * The Admin GraphQL documents the sync sends and the zod shapes of their `data`.
 * Schema reference: https://shopify.dev/docs/api/admin-graphql/2025-01/queries/products ,
 * `deletionEvents`: https://shopify.dev/docs/api/admin-graphql/2025-01/queries/deletionEvents
 */
export const PRODUCTS_QUERY = /* GraphQL */ `
  query AtelierProducts($first: Int!, $after: String, $query: String) {
    products(first: $first, after: $after, query: $query, sortKey: UPDATED_AT) {
      pageInfo {
        hasNextPage
        endCursor
      }
      nodes {
        id
        handle
        title
        descriptionHtml
        status
        totalInventory
        productType
        vendor
        tags
        updatedAt
        options {
          name
          values
        }
        media(first: 50) {
          nodes {
            mediaContentType
            ... on MediaImage {
              image {
                url
                width
                height
                altText
              }
            }
          }
        }
        variants(first: 100) {
          pageInfo {
            hasNextPage
            endCursor
          }
          nodes {
            ...AtelierVariant
          }
        }
        collections(first: 50) {
          nodes {
            id
            handle
            title
          }
        }
        sellingPlanGroups(first: 20) {
          nodes {
            id
            name
            merchantCode
            summary
            options
            sellingPlans(first: 20) {
              nodes {
                id
                name
                description
                billingPolicy {
                  ... on SellingPlanRecurringBillingPolicy {
                    interval
                    intervalCount
                  }
                }
                deliveryPolicy {
                  ... on SellingPlanRecurringDeliveryPolicy {
                    interval
                    intervalCount
                  }
                }
                pricingPolicies {
                  ... on SellingPlanFixedPricingPolicy {
                    adjustmentType
                    adjustmentValue {
                      ... on SellingPlanPricingPolicyPercentageValue {
                        percentage
                      }
                      ... on MoneyV2 {
                        amount
                        currencyCode
                      }
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  fragment AtelierVariant on ProductVariant {
    id
    title
    sku
    price
    compareAtPrice
    availableForSale
    inventoryQuantity
    selectedOptions {
      name
      value
    }
    media(first: 1) {
      nodes {
        ... on MediaImage {
          image {
            url
          }
        }
      }
    }
  }
`;

/** Further variants of one product (products with more than 100 variants). */
export const VARIANTS_QUERY = /* GraphQL */ `
  query AtelierVariants($id: ID!, $after: String) {
    product(id: $id) {
      variants(first: 250, after: $after) {
        pageInfo {
          hasNextPage
          endCursor
        }
        nodes {
          ...AtelierVariant
        }
      }
    }
  }
  fragment AtelierVariant on ProductVariant {
    id
    title
    sku
    price
    compareAtPrice
    availableForSale
    inventoryQuantity
    selectedOptions {
      name
      value
    }
    media(first: 1) {
      nodes {
        ... on MediaImage {
          image {
            url
          }
        }
      }
    }
  }
`;

export const DELETIONS_QUERY = /* GraphQL */ `
  query AtelierDeletions($first: Int!, $after: String, $query: String) {
    deletionEvents(first: $first, after: $after, query: $query, subjectTypes: [PRODUCT], sortKey: CREATED_AT) {
      pageInfo {
        hasNextPage
        endCursor
      }
      nodes {
        subjectId
        subjectType
        occurredAt
      }
    }
  }
`;

const PageInfoSchema = z.object({ hasNextPage: z.boolean(), endCursor: z.string().nullable() });
const money = z.string().refine(isDecimalString, 'must be a decimal string');
const VariantSchema = z.object({
  id: z.string().regex(/^gid:\/\/shopify\/ProductVariant\/\d+$/),
  title: z.string(),
  sku: z.string().nullable(),
  price: money,
  compareAtPrice: money.nullable(),
  availableForSale: z.boolean(),
  inventoryQuantity: z.number().int().nullable(),
  selectedOptions: z.array(z.object({ name: z.string(), value: z.string() })),
  media: z.object({ nodes: z.array(z.object({ image: z.object({ url: z.string() }).nullable().optional() }).loose()) }).optional(),
});
const PlanSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable().optional(),
  billingPolicy: z.object({ interval: z.string().optional(), intervalCount: z.number().optional() }).loose().nullable().optional(),
  deliveryPolicy: z.object({ interval: z.string().optional(), intervalCount: z.number().optional() }).loose().nullable().optional(),
  pricingPolicies: z
    .array(z.object({ adjustmentType: z.string().optional(), adjustmentValue: z.record(z.string(), z.unknown()).optional() }).loose())
    .optional(),
});
const ProductNodeSchema = z.object({
  id: z.string().regex(/^gid:\/\/shopify\/Product\/\d+$/),
  handle: z.string(),
  title: z.string(),
  descriptionHtml: z.string(),
  status: z.enum(['ACTIVE', 'DRAFT', 'ARCHIVED']),
  totalInventory: z.number().int().nullable(),
  productType: z.string(),
  vendor: z.string(),
  tags: z.array(z.string()),
  updatedAt: z.string(),
  options: z.array(z.object({ name: z.string(), values: z.array(z.string()) })),
  media: z.object({
    nodes: z.array(
      z.object({
        mediaContentType: z.string(),
        image: z
          .object({
            url: z.string(),
            width: z.number().int().nullable(),
            height: z.number().int().nullable(),
            altText: z.string().nullable(),
          })
          .nullable()
          .optional(),
      }),
    ),
  }),
  variants: z.object({ pageInfo: PageInfoSchema, nodes: z.array(VariantSchema) }),
  collections: z.object({ nodes: z.array(z.object({ id: z.string(), handle: z.string(), title: z.string() })) }),
  sellingPlanGroups: z.object({
    nodes: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        merchantCode: z.string().nullable().optional(),
        summary: z.string().nullable().optional(),
        options: z.array(z.string()).optional(),
        sellingPlans: z.object({ nodes: z.array(PlanSchema) }),
      }),
    ),
  }),
});
export type ProductNode = z.infer<typeof ProductNodeSchema>;
export type VariantNode = z.infer<typeof VariantSchema>;

export const ProductsDataSchema = z.object({ products: z.object({ pageInfo: PageInfoSchema, nodes: z.array(ProductNodeSchema) }) });
export const VariantsDataSchema = z.object({
  product: z.object({ variants: z.object({ pageInfo: PageInfoSchema, nodes: z.array(VariantSchema) }) }).nullable(),
});
export const DeletionsDataSchema = z.object({
  deletionEvents: z.object({
    pageInfo: PageInfoSchema,
    nodes: z.array(z.object({ subjectId: z.string(), subjectType: z.string(), occurredAt: z.string() })),
  }),
});

/** camelCase → snake_case keys, recursively (selling plan groups are passed through as the platform gives them). */
function snake(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(snake);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), snake(x)]));
}

/** Map an Admin GraphQL product node (with all its variants) to the read model's input. */
export function productFromNode(n: ProductNode, variants: VariantNode[]): CatalogProductInput {
  return {
    gid: n.id,
    handle: n.handle,
    title: n.title,
    description_html: n.descriptionHtml,
    status: n.status,
    product_type: n.productType,
    vendor: n.vendor,
    tags: n.tags,
    options: n.options,
    images: n.media.nodes
      .filter((m) => m.mediaContentType === 'IMAGE' && m.image)
      .map((m) => ({ url: m.image!.url, alt_text: m.image!.altText ?? '', width: m.image!.width, height: m.image!.height })),
    variants: variants.map((v) => ({
      gid: v.id,
      title: v.title,
      price: v.price,
      compare_at_price: v.compareAtPrice,
      sku: v.sku ?? '',
      available: v.availableForSale,
      inventory_quantity: v.inventoryQuantity,
      image_url: v.media?.nodes[0]?.image?.url ?? null,
      selected_options: v.selectedOptions,
    })),
    selling_plan_groups: n.sellingPlanGroups.nodes.map(
      (g) => snake({ ...g, sellingPlans: g.sellingPlans.nodes }) as Record<string, unknown>,
    ),
    collections: n.collections.nodes.map((c) => ({ handle: c.handle, title: c.title, gid: c.id })),
    total_inventory: n.totalInventory,
    platform_updated_at: n.updatedAt,
  };
}
