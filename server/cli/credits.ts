import type { Command } from 'commander';
import { boot } from '../main.ts';
import type { CliKit } from './catalog.ts';

/**
 * `atelier credits show|set-budget`: read a workspace's credit ledger and set its generation budget
 * (credits; `asset_generate` is refused with `budget_exceeded` beyond it). Without a workspace budget,
 * `ATELIER_CREDIT_BUDGET` applies, and without that, generation is unlimited.
 */
export function registerCreditCommands(program: Command, kit: CliKit): void {
  const credits = program.command('credits').description("a workspace's generation credits: ledger and budget");
  const open = async (workspaceId: string) => {
    const { app } = await boot();
    const ws = await app.library.tenancy.operator.workspaceById(workspaceId);
    if (!ws) kit.fail(`workspace ${workspaceId} does not exist`);
    return { app, scope: { tenantId: ws.tenant_id, workspaceId: ws.id } };
  };

  credits
    .command('show')
    .description('credits used, the budget and the remaining credits of a workspace')
    .requiredOption('--workspace <id>', 'workspace id')
    .option('--json', 'print {"workspace_id","used","budget","remaining","default_budget"}')
    .action(async (o: { workspace: string; json?: boolean }) => {
      const { app, scope } = await open(o.workspace);
      const q = app.stores.credits;
      const used = await q.used(scope);
      const own = await q.budget(scope);
      const fallback = app.config.env.ATELIER_CREDIT_BUDGET ?? null;
      const budget = own ?? fallback;
      await app.close();
      const out = {
        workspace_id: scope.workspaceId,
        used,
        budget,
        remaining: budget === null ? null : Math.max(0, budget - used),
        default_budget: own === null && fallback !== null,
      };
      kit.emit(
        !!o.json,
        out,
        `used: ${used}\nbudget: ${budget ?? 'unlimited'}${out.default_budget ? ' (ATELIER_CREDIT_BUDGET)' : ''}\nremaining: ${out.remaining ?? 'unlimited'}`,
      );
    });

  credits
    .command('set-budget')
    .description('set (or with --unlimited remove) the credit budget of a workspace')
    .requiredOption('--workspace <id>', 'workspace id')
    .option('--credits <n>', 'budget in credits (integer ≥ 0)', (v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0) kit.fail(`--credits must be an integer ≥ 0 (got ${v})`);
      return n;
    })
    .option('--unlimited', 'remove the workspace budget (ATELIER_CREDIT_BUDGET, if set, applies again)')
    .option('--json', 'print {"workspace_id","budget"}')
    .action(async (o: { workspace: string; credits?: number; unlimited?: boolean; json?: boolean }) => {
      if ((o.credits === undefined) === !o.unlimited) kit.fail('pass exactly one of --credits <n> or --unlimited');
      const { app, scope } = await open(o.workspace);
      await app.stores.credits.setBudget(scope, o.unlimited ? null : o.credits!);
      await app.close();
      kit.emit(
        !!o.json,
        { workspace_id: scope.workspaceId, budget: o.unlimited ? null : o.credits! },
        `budget of ${scope.workspaceId}: ${o.unlimited ? 'unlimited' : `${o.credits} credits`}`,
      );
    });
}
