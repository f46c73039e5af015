import { ROUTER, ROUTERS } from '../../shared/actions.ts';
import type { z } from 'zod';
import type { DiscoverArgsSchema } from '../../shared/schemas/discover.ts';
import { discoverActions, inputJsonSchema, outputJsonSchema } from '../domain/discover.ts';
import { handler, type RouterImpl } from './types.ts';

/** `svc_discover`: authoritative action schemas and former operation names (spec §4, §9). */
export function discoverRouter(): RouterImpl {
  return {
    name: ROUTER.discover,
    handlers: {
      discover: handler<z.infer<typeof DiscoverArgsSchema>>(async (args) => {
        const hits = discoverActions(args.query, args.router);
        const actions = hits.map(({ def, matchedBy }) => ({
          router: def.router,
          action: def.action,
          description: def.description,
          former_names: def.formerNames,
          visibility: ROUTERS.find((r) => r.name === def.router)?.visibility ?? ['model', 'app'],
          matched_by: matchedBy,
          call: { tool: def.router, arguments: { action: def.action, args: {} } },
          args_schema: args.include_schemas ? inputJsonSchema(def.args) : null,
          result_schema: args.include_schemas ? outputJsonSchema(def.result) : null,
        }));
        const text = actions.length === 0
          ? `No action matches "${args.query ?? ''}". Call svc_discover without a query to list all actions.`
          : actions.map((a) => `${a.router} action "${a.action}"${a.matched_by === 'former_name' ? ` (former name ${args.query})` : ''}: ${a.description} Call: tool ${a.router} with {"action":"${a.action}","args":{…}}.`).join('\n') +
            (args.include_schemas ? '\nFull args/result JSON Schemas are in structuredContent.actions[].args_schema / result_schema.' : '');
        return { structuredContent: { actions, total: actions.length }, text };
      }),
    },
  };
}
