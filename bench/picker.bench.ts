/**
 * Panel data paths over a 10,008-asset workspace (8 real imports + 10,000 rows cloned through the asset
 * store port): what the picker and the search panel ask the server for, through a real MCP client.
 * Targets: a page ≤ 50 ms p95 at any depth, facets ≤ 100 ms p95, 50 thumbnails ≤ 150 ms p95 (payload
 * ≤ 1.5 MB), so a panel stays responsive while it scrolls.
 */
import { startTestServer } from '../e2e/mcp/harness.ts';
import { importNature, seedRows } from '../e2e/panels/seed.ts';
import { percentile, table, timeIt } from './stats.ts';

export default async function pickerBench(): Promise<void> {
  const srv = await startTestServer();
  try {
    const ui = await srv.connect(undefined, { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } });
    const scope = { tenantId: srv.tenant.tenant_id, workspaceId: srv.tenant.workspace_id };
    const nature = await importNature(ui, srv.tenant.workspace_id);
    const t0 = performance.now();
    await seedRows(srv.app, scope, 10_000, { prefix: 'bulk', templateIds: nature.map((n) => n.id) });
    const seedMs = performance.now() - t0;
    const theme = srv.tenant.theme_id;

    // Walk the whole browse result once to collect cursors at several depths.
    const cursors: (string | null)[] = [null];
    let cursor: string | null = null;
    do {
      const r = await ui.call('svc_asset_library', 'search', { theme_id: theme, limit: 50, ...(cursor ? { cursor } : {}) });
      cursor = r.structured.next_cursor as string | null;
      cursors.push(cursor);
    } while (cursor);
    const deep = cursors[cursors.length - 2]!;
    const firstIds = (
      (await ui.call('svc_asset_library', 'search', { theme_id: theme, limit: 50 })).structured.assets as { id: string }[]
    ).map((a) => a.id);
    let thumbBytes = 0;

    const cases: [string, () => Promise<unknown>][] = [
      ['select (panel host): picker id + first page', () => ui.call('svc_asset_select', 'select', { theme_id: theme })],
      ['search page 1 (browse, 50)', () => ui.call('svc_asset_library', 'search', { theme_id: theme, limit: 50 })],
      [
        `search page ${cursors.length - 1} (browse, cursor at offset ~10,000)`,
        () => ui.call('svc_asset_library', 'search', { theme_id: theme, limit: 50, cursor: deep }),
      ],
      [
        'panel page at offset 9,950 (random access, Ctrl+End)',
        () => ui.call('svc_asset_panel', 'page', { theme_id: theme, limit: 50, offset: 9_950, cursor: cursors[1] }),
      ],
      [
        'search "bulk" page 1 (FTS5, 10,000 hits)',
        () => ui.call('svc_asset_library', 'search', { theme_id: theme, query: 'bulk', mode: 'filename', limit: 50 }),
      ],
      ['facets (whole library)', () => ui.call('svc_asset_panel', 'facets', {})],
      ['facets (query "bulk")', () => ui.call('svc_asset_panel', 'facets', { query: 'bulk' })],
      [
        'thumbnails × 50 (data: URLs)',
        async () => {
          const r = await ui.call('svc_asset_panel', 'thumbnails', { asset_ids: firstIds });
          thumbBytes = JSON.stringify(r.structured).length;
        },
      ],
    ];
    const rows: (string | number)[][] = [];
    for (const [name, fn] of cases) {
      const s = await timeIt(fn, 20, 3);
      rows.push([name, percentile(s, 50).toFixed(1), percentile(s, 95).toFixed(1)]);
    }
    process.stdout.write(
      `seeded 10,000 rows in ${seedMs.toFixed(0)} ms; full browse = ${cursors.length - 1} pages; thumbnails payload ${(thumbBytes / 1024).toFixed(0)} KiB per 50\n`,
    );
    table(['request (MCP, in-memory transport)', 'p50 ms', 'p95 ms'], rows);
  } finally {
    await srv.close();
  }
}
