import { z } from 'zod';
import { UuidSchema } from './common.ts';

/** Args of `svc_discover` `scope`: nothing; the API key of the call decides what is returned. */
export const ScopeArgsSchema = z.object({}).strict();

/** A theme (brand kit) of a workspace; asset search and select need its id. */
export const ScopeThemeSchema = z.object({
  id: UuidSchema,
  name: z.string(),
  default: z.boolean().describe("the workspace's default theme"),
});

/** A store (product catalog) of a workspace. */
export const ScopeStoreSchema = z.object({
  id: UuidSchema,
  name: z.string(),
  status: z.enum(['active', 'archived']),
  catalog_synced_at: z.string().nullable().describe('last catalog sync or import (ISO 8601 UTC); null if never'),
});

/** Result of `svc_discover` `scope`: everything the calling API key reaches. */
export const ScopeResultSchema = z.object({
  workspaces: z.array(
    z.object({
      id: UuidSchema,
      name: z.string(),
      status: z.enum(['active', 'archived']).describe('archived workspaces cannot be used'),
      themes: z.array(ScopeThemeSchema),
      stores: z.array(ScopeStoreSchema),
    }),
  ),
  defaults: z
    .object({
      workspace_id: UuidSchema.nullable().describe(
        'used when workspace_id is omitted (the only active workspace); null when you must choose',
      ),
      store_id: UuidSchema.nullable().describe(
        'used when store_id is omitted (the only active store of that workspace); null when you must choose',
      ),
      theme_id: UuidSchema.nullable().describe('default theme of that workspace: pass it as theme_id to search and select'),
    })
    .describe('what is used when you leave the ids out'),
  storage: z
    .object({
      quota_bytes: z.number().int().nullable().describe("the tenant's storage quota, bytes; null = unlimited"),
      quota_source: z
        .enum(['tenant', 'default'])
        .describe("tenant: the operator set this tenant's own quota; default: the server's quota for every tenant"),
      used_bytes: z.number().int().describe('bytes counted against it: asset_bytes + staged_bytes'),
      asset_bytes: z.number().int().describe("originals and renditions of the tenant's assets (all workspaces), bytes"),
      staged_bytes: z.number().int().describe('declared sizes of uploads still receiving or staged (attachments not imported), bytes'),
    })
    .describe("the tenant's storage: an import, upload or generation that would take used_bytes past quota_bytes gets quota_exceeded"),
});
export type ScopeResult = z.infer<typeof ScopeResultSchema>;
