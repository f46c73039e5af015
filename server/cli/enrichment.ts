import type { Command } from 'commander';
import { queueReanalysis } from '../enrichment/reanalyze.ts';
import { boot } from '../main.ts';
import type { CliKit } from './catalog.ts';

/**
 * `atelier reanalyze [--workspace <id>]`: queue a fresh analysis of image assets analysed by an earlier
 * version (server/enrichment/reanalyze.ts). The workers of a running `serve` or `start` on the same data
 * dir do the work; search reports those assets as being analysed until they are done.
 */
export function registerEnrichmentCommands(program: Command, kit: CliKit): void {
  program
    .command('reanalyze')
    .description(
      "queue a fresh analysis (OCR, colours, the file's own caption and keywords, machine alt text, vectors) of every image asset, or of one workspace's; a running server does the work",
    )
    .option('--workspace <id>', 'only this workspace')
    .option('--json', 'print {"queued"}')
    .action(async (o: { workspace?: string; json?: boolean }) => {
      const { app } = await boot();
      let scope = null;
      if (o.workspace) {
        const ws = await app.library.tenancy.operator.workspaceById(o.workspace);
        if (!ws) kit.fail(`workspace ${o.workspace} does not exist`);
        scope = { tenantId: ws.tenant_id, workspaceId: ws.id };
      }
      const queued = await queueReanalysis(app.stores, scope);
      await app.close();
      kit.emit(
        !!o.json,
        { queued },
        `queued ${queued} image asset${queued === 1 ? '' : 's'} for analysis; a running \`atelier serve\` or \`start\` on this data dir analyses them`,
      );
    });
}
