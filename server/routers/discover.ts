import { ROUTER, ROUTERS } from '../../shared/actions.ts';
import type { DiscoverEntrySchema } from '../../shared/schemas/discover.ts';
import type { z } from 'zod';
import type { ScopeResult } from '../../shared/schemas/scope.ts';
import type { LibraryDeps } from '../assets/deps.ts';
import { tenantStorage } from '../assets/quota.ts';
import { discoverActions, inputJsonSchema, outputJsonSchema } from '../domain/discover.ts';
import { describeScope } from '../tenancy/scope.ts';
import { defineRouter, type RouterImpl } from './types.ts';

const panelOnly = (router: string): boolean => ROUTERS.find((r) => r.name === router)?.visibility?.includes('model') === false;

/** Text of `scope`: one line per workspace with its themes and stores, then the defaults. */
function describeScopeText(s: Omit<ScopeResult, 'storage'>): string {
  const lines = s.workspaces.map(
    (w) =>
      `workspace ${w.id} "${w.name}"${w.status === 'archived' ? ' (archived, unusable)' : ''}: ` +
      `themes ${w.themes.map((t) => `${t.id} "${t.name}"${t.default ? ' (default)' : ''}`).join(', ') || 'none'}; ` +
      `stores ${w.stores.map((st) => `${st.id} "${st.name}"${st.status === 'archived' ? ' (archived)' : ''}`).join(', ') || 'none'}`,
  );
  const d = s.defaults;
  const defaults = [
    d.workspace_id ? `workspace_id ${d.workspace_id} is used when omitted` : 'several workspaces (or none) are active: pass workspace_id',
    d.store_id
      ? `store_id ${d.store_id} is used when omitted`
      : d.workspace_id
        ? 'pass store_id to catalog calls (not exactly one active store)'
        : null,
    d.theme_id ? `pass theme_id ${d.theme_id} to asset search and select` : null,
  ].filter(Boolean);
  return [`Your API key reaches ${s.workspaces.length} workspace(s):`, ...lines, `${defaults.join('; ')}.`].join('\n');
}

/** Text of the tenant's storage line. */
function describeStorageText(st: ScopeResult['storage']): string {
  const own = st.quota_source === 'tenant' ? "this tenant's own " : '';
  return st.quota_bytes === null
    ? `Storage: ${st.used_bytes} bytes used (no ${own}quota).`
    : `Storage: ${st.used_bytes} of ${st.quota_bytes} bytes used, ${own}quota (${st.asset_bytes} in assets, ${st.staged_bytes} in staged uploads).`;
}

/**
 * `svc_discover`: the caller's scope with its tenant's storage, and action schemas and former operation
 * names (spec §4, §9).
 */
export function discoverRouter(library: Pick<LibraryDeps, 'tenancy' | 'assets' | 'policy'>): RouterImpl<typeof ROUTER.discover> {
  return defineRouter(ROUTER.discover, {
    scope: async (_args, ctx) => {
      const s = { ...(await describeScope(library.tenancy, ctx.principal)), storage: await tenantStorage(library, ctx.principal.tenantId) };
      return { structuredContent: s, text: `${describeScopeText(s)}\n${describeStorageText(s.storage)}` };
    },
    discover: async (args, ctx) => {
      // Panel-only actions are offered to clients that render panels, as in tools/list.
      const hits = discoverActions(args.query, args.router).filter(
        ({ def }) => ctx.clientRendersPanels || !panelOnly(def.router) || args.router === def.router,
      );
      const schemas = args.include_schemas ?? hits.length === 1;
      const actions: z.output<typeof DiscoverEntrySchema>[] = hits.map(({ def, matchedBy }) => ({
        router: def.router,
        action: def.action,
        description: def.description,
        former_names: [...def.formerNames],
        ...(panelOnly(def.router) ? { panel_only: true } : {}),
        matched_by: matchedBy,
        ...(schemas ? { args_schema: inputJsonSchema(def.args), result_schema: outputJsonSchema(def.result) } : {}),
      }));
      const line = (a: (typeof actions)[number]): string =>
        `${a.router} ${a.action}: ${a.description}${a.matched_by === 'former_name' ? ` (old name ${args.query})` : ''}`;
      const text =
        actions.length === 0
          ? `No action matches "${args.query ?? ''}". Call svc_discover discover without a query to list every action.`
          : [
              ...actions.map(line),
              `Call a tool as {"action": "<action>", "args": {…}}.${schemas ? ' Full args and result JSON Schemas are in structuredContent.' : ' Ask with include_schemas true, or name one action, for its full JSON Schema.'}`,
            ].join('\n');
      return { structuredContent: { actions, total: actions.length }, text };
    },
  });
}
