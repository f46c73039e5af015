import { z } from 'zod';

/** Args of `svc_discover` `discover`. */
export const DiscoverArgsSchema = z
  .object({
    query: z.string().trim().max(200).optional().describe('operation name, former name (e.g. search_assets, list_products) or words from a description; omit to list everything'),
    router: z.string().max(100).optional().describe('restrict to one router tool'),
    include_schemas: z.boolean().default(true).describe('include the JSON Schemas of args and result'),
  })
  .strict();

export const DiscoverEntrySchema = z.object({
  router: z.string(),
  action: z.string(),
  description: z.string(),
  former_names: z.array(z.string()),
  visibility: z.array(z.enum(['model', 'app'])),
  matched_by: z.enum(['action', 'former_name', 'router', 'description', 'all']),
  call: z.object({ tool: z.string(), arguments: z.object({ action: z.string(), args: z.record(z.string(), z.unknown()) }) }).describe('how to call it'),
  args_schema: z.record(z.string(), z.unknown()).nullable().describe('JSON Schema (draft 2020-12) of args'),
  result_schema: z.record(z.string(), z.unknown()).nullable().describe('JSON Schema of structuredContent'),
});

export const DiscoverResultSchema = z.object({ actions: z.array(DiscoverEntrySchema), total: z.number().int() });
