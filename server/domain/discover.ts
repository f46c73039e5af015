import { z } from 'zod';
import { ACTIONS, type ActionDef } from '../../shared/actions.ts';

export type MatchKind = 'action' | 'former_name' | 'router' | 'description' | 'all';

/** JSON Schema (draft 2020-12) of a zod schema, as accepted on input (defaults make fields optional). */
export function inputJsonSchema(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
}

/** JSON Schema of a result schema as produced on output. */
export function outputJsonSchema(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' });
}

const norm = (s: string): string => s.toLowerCase().replace(/[\s-]+/g, '_');

/**
 * Find actions for `svc_discover`: by exact action name, former operation name (`search_assets`,
 * `list_products`), router name, then words of the description. Exact matches rank first.
 * @param defs the registry (injectable for tests)
 */
export function discoverActions(
  query: string | undefined,
  router: string | undefined,
  defs: readonly ActionDef[] = ACTIONS,
): { def: ActionDef; matchedBy: MatchKind }[] {
  const pool = router ? defs.filter((d) => d.router === router) : defs;
  if (!query) return pool.map((def) => ({ def, matchedBy: 'all' as const }));
  const q = norm(query);
  const out: { def: ActionDef; matchedBy: MatchKind; rank: number }[] = [];
  for (const def of pool) {
    if (norm(def.action) === q || `${def.router}.${def.action}` === q || `${def.router}/${def.action}` === q)
      out.push({ def, matchedBy: 'action', rank: 0 });
    else if (def.formerNames.some((n) => norm(n) === q)) out.push({ def, matchedBy: 'former_name', rank: 1 });
    else if (def.router === q) out.push({ def, matchedBy: 'router', rank: 2 });
    else {
      const words = q.split('_').filter((w) => w.length > 2);
      const hay = norm(`${def.action} ${def.formerNames.join(' ')} ${def.description}`);
      if (words.length > 0 && words.every((w) => hay.includes(w))) out.push({ def, matchedBy: 'description', rank: 3 });
    }
  }
  return out.sort((a, b) => a.rank - b.rank).map(({ def, matchedBy }) => ({ def, matchedBy }));
}
