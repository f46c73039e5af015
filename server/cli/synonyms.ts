import type { Command } from 'commander';
import { z } from 'zod';
import type { SynonymRow } from '../db/ports/synonym-store.ts';
import type { SynonymRule } from '../domain/search/lexical-words.ts';
import { boot } from '../main.ts';
import type { CliKit } from './catalog.ts';

const WordSchema = z
  .string()
  .trim()
  .toLowerCase()
  .min(1, 'must not be empty')
  .max(100, 'must be at most 100 characters')
  .regex(/[\p{L}\p{N}]/u, 'must hold a letter or digit');
/** A rule as the command line gives it: two-way needs two words or more, one-way an input and one word or more. */
const RuleSchema = z
  .object({ input: WordSchema.nullable(), words: z.array(WordSchema).min(1, 'needs at least one word').max(50, 'takes at most 50 words') })
  .superRefine((v, ctx) => {
    if (v.input === null && v.words.length < 2)
      ctx.addIssue({ code: 'custom', path: ['words'], message: 'a two-way rule needs at least two words (or pass --one-way <word>)' });
  });

function describe(r: SynonymRow): string {
  const where = r.store_id ? `store ${r.store_id}` : 'workspace';
  return r.kind === 'one_way'
    ? `${r.id}  ${where}  one-way  ${r.input} → ${r.words.join(', ')}`
    : `${r.id}  ${where}  two-way  ${r.words.join(' = ')}`;
}

/**
 * `atelier synonyms add|list|remove`: the operator synonym lists of a workspace (asset search and
 * every store) and of a store (its list_products), as Shopify and Algolia offer. Two-way rules make
 * each word find the others ("sofa couch settee"); one-way rules let one word also find others, not
 * back (`--one-way tee t-shirt`). Search applies them at once (no restart), as concept matches.
 */
export function registerSynonymCommands(program: Command, kit: CliKit): void {
  const cmd = program
    .command('synonyms')
    .description('operator synonym lists of a workspace (asset search, every store) or one store (list_products)');
  const open = async (workspaceId: string) => {
    const { app } = await boot();
    const ws = await app.library.tenancy.operator.workspaceById(workspaceId);
    if (!ws) kit.fail(`workspace ${workspaceId} does not exist`);
    return { app, scope: { tenantId: ws.tenant_id, workspaceId: ws.id }, q: app.stores.synonyms };
  };

  cmd
    .command('add')
    .description('add a rule: two-way between all <words>, or one-way from --one-way <word> to <words>')
    .argument('<words...>', 'words or quoted phrases')
    .requiredOption('--workspace <id>', 'workspace id')
    .option('--store <id>', "apply to this store's list_products only (default: the workspace list)")
    .option('--one-way <word>', 'searching this word also finds <words>, not the other way round')
    .option('--json', 'print the stored rule')
    .action(async (words: string[], o: { workspace: string; store?: string; oneWay?: string; json?: boolean }) => {
      const parsed = RuleSchema.safeParse({ input: o.oneWay ?? null, words });
      if (!parsed.success) kit.fail(parsed.error.issues.map((i) => `${i.path.join('.') || 'words'}: ${i.message}`).join('; '));
      const { app, scope, q } = await open(o.workspace);
      if (o.store) {
        const s = await app.library.tenancy.storeById(o.store);
        if (!s || s.workspace_id !== scope.workspaceId) {
          await app.close();
          kit.fail(`store ${o.store} does not exist in workspace ${scope.workspaceId}`);
        }
      }
      const rule: SynonymRule = {
        kind: parsed.data.input === null ? 'two_way' : 'one_way',
        input: parsed.data.input,
        words: [...new Set(parsed.data.words)],
      };
      const row = await q.add(scope, o.store ?? null, rule);
      await app.close();
      kit.emit(!!o.json, { ...row }, `added ${describe(row)}`);
    });

  cmd
    .command('list')
    .description('the rules of a workspace and its stores, oldest first')
    .requiredOption('--workspace <id>', 'workspace id')
    .option('--json', 'print {"rules":[…]}')
    .action(async (o: { workspace: string; json?: boolean }) => {
      const { app, scope, q } = await open(o.workspace);
      const rules = await q.list(scope);
      await app.close();
      kit.emit(!!o.json, { rules }, rules.length ? rules.map(describe).join('\n') : 'no synonym rules');
    });

  cmd
    .command('remove')
    .description('remove a rule by id')
    .argument('<id>', 'rule id (from list)')
    .option('--json', 'print {"removed":id}')
    .action(async (id: string, o: { json?: boolean }) => {
      const { app } = await boot();
      const q = app.stores.synonyms;
      const row = await q.byId(id);
      const removed = row ? await q.remove({ tenantId: row.tenant_id, workspaceId: row.workspace_id }, id) : false;
      await app.close();
      if (!removed) kit.fail(`synonym rule ${id} does not exist`);
      kit.emit(!!o.json, { removed: id }, `removed ${id}`);
    });
}
