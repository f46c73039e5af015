import { z } from 'zod';

/** Args of `svc_discover` `discover`. */
export const DiscoverArgsSchema = z
  .object({
    query: z.string().trim().max(200).optional().describe('action name, old name or words; omit to list all'),
    router: z.string().max(100).optional().describe('only the actions of this tool'),
    include_schemas: z.boolean().optional().describe('default: only when one action matches'),
  })
  .strict();

export const DiscoverEntrySchema = z.object({
  router: z.string().describe('the tool to call'),
  action: z.string(),
  description: z.string(),
  former_names: z.array(z.string()).describe('old operation names that lead here'),
  panel_only: z.boolean().optional().describe('true for actions only the panels call; absent otherwise'),
  matched_by: z.enum(['action', 'former_name', 'router', 'description', 'all']),
  args_schema: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('JSON Schema (draft 2020-12) of args; present when schemas are included'),
  result_schema: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('JSON Schema of structuredContent; present when schemas are included'),
});

export const DiscoverResultSchema = z.object({ actions: z.array(DiscoverEntrySchema), total: z.number().int() });
