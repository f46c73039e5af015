import { z } from 'zod';
import { int } from './config-fields.ts';

/** The catalog variables (part of config.ts `EnvSchema`): the Shopify Admin GraphQL store that `atelier catalog sync` reads. */
export const CATALOG_ENV = {
  ATELIER_SHOPIFY_SHOP: z
    .string()
    .min(1)
    .optional()
    .describe('shop domain for `atelier catalog sync`, e.g. my-shop.myshopify.com (or pass --shop)'),
  ATELIER_SHOPIFY_ACCESS_TOKEN: z
    .string()
    .min(1)
    .optional()
    .describe('Admin API access token (custom app, scope read_products) for catalog sync'),
  ATELIER_SHOPIFY_API_VERSION: z
    .string()
    .regex(/^\d{4}-\d{2}$|^unstable$/, 'must be a Shopify API version like 2025-01')
    .default('2025-01')
    .describe('Admin GraphQL API version'),
  ATELIER_SHOPIFY_ADMIN_URL: z
    .string()
    .url('must be an absolute URL')
    .optional()
    .describe('full Admin GraphQL endpoint overriding https://<shop>/admin/api/<version>/graphql.json (proxies, tests)'),
  ATELIER_SHOPIFY_TIMEOUT_MS: int(100, 600_000).default(30_000).describe('Admin API request timeout, ms'),
};
