import type { Tool } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIONS, ROUTERS } from '../../shared/actions.ts';
import { createTenant } from '../../server/tenancy/admin.ts';
import { startTestServer, type TestServer } from './harness.ts';
import { APPS_CLIENT_CAPABILITIES, connectWeighing, jsonBytes } from './wire-size.ts';

/** Issue 12 budgets of tools/list, in bytes of the JSON-RPC result (KiB). */
const PLAIN_BUDGET_BYTES = 12 * 1024;
const APPS_BUDGET_BYTES = 16 * 1024;
const PANEL_ONLY = ROUTERS.filter((r) => r.visibility && !r.visibility.includes('model')).map((r) => r.name);

/** Every argument name the schema shows without resolving conditionals: properties of `args`, of its `anyOf` branches and of `$defs`. */
function argumentNames(tool: Tool): Set<string> {
  const schema = tool.inputSchema as unknown as {
    properties: { args: { properties?: Record<string, unknown>; anyOf?: { properties?: Record<string, unknown> }[] } };
  };
  const args = schema.properties.args;
  return new Set([...Object.keys(args.properties ?? {}), ...(args.anyOf ?? []).flatMap((b) => Object.keys(b.properties ?? {}))]);
}

describe('tools/list stays within its budget and shows every argument', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ env: { ATELIER_ENRICHMENT: '0' } });
  });
  afterAll(async () => srv.close());

  it(`plain client: ≤ ${PLAIN_BUDGET_BYTES} bytes, no panel-only tools, only the panel links of _meta, no conditional schemas`, async () => {
    const c = await connectWeighing(srv.app, srv.tenant.api_key);
    const { tools } = await c.client.listTools();
    expect(jsonBytes(c.lastResult())).toBeLessThanOrEqual(PLAIN_BUDGET_BYTES);
    expect(tools.map((t) => t.name).filter((n) => PANEL_ONLY.includes(n as never))).toEqual([]);
    // Only the panel link, for hosts that render panels without declaring MCP Apps; nothing else of `_meta`.
    expect(tools.filter((t) => t._meta).map((t) => [t.name, t._meta])).toEqual([
      ['svc_asset_library', { ui: { resourceUri: 'ui://atelier/search-results.html' } }],
      ['svc_asset_select', { ui: { resourceUri: 'ui://atelier/asset-picker.html' } }],
      ['svc_asset_upload', { ui: { resourceUri: 'ui://atelier/upload.html' } }],
    ]);
    for (const t of tools) {
      const json = JSON.stringify(t.inputSchema);
      expect(json, t.name).not.toMatch(/"(if|then|allOf)":/);
      // UUIDs are a format, not a 73-character pattern repeated in every tool
      expect(json, t.name).not.toContain('"pattern":');
    }
  });

  it(`MCP Apps client: ≤ ${APPS_BUDGET_BYTES} bytes, panel-only tools listed with _meta.ui`, async () => {
    const c = await connectWeighing(srv.app, srv.tenant.api_key, APPS_CLIENT_CAPABILITIES);
    const { tools } = await c.client.listTools();
    expect(jsonBytes(c.lastResult())).toBeLessThanOrEqual(APPS_BUDGET_BYTES);
    expect(tools.map((t) => t.name).sort()).toEqual(ROUTERS.map((r) => r.name).sort());
    const panel = tools.find((t) => t.name === 'svc_asset_panel')!;
    expect(panel._meta).toEqual({ ui: { visibility: ['app'] } });
    const search = tools.find((t) => t.name === 'svc_asset_library')!;
    expect(search._meta).toEqual({
      ui: { resourceUri: 'ui://atelier/search-results.html' },
      'ui/resourceUri': 'ui://atelier/search-results.html',
    });
  });

  it('shows every non-deprecated argument name of every action of every listed tool', async () => {
    const c = await connectWeighing(srv.app, srv.tenant.api_key, APPS_CLIENT_CAPABILITIES);
    const { tools } = await c.client.listTools();
    let checked = 0;
    for (const t of tools) {
      const names = argumentNames(t);
      for (const a of ACTIONS.filter((x) => x.router === t.name)) {
        const shape = a.args as unknown as {
          def?: { shape?: Record<string, { meta?: () => { deprecated?: boolean } | undefined }> };
          shape?: Record<string, { meta?: () => { deprecated?: boolean } | undefined }>;
        };
        const fields = shape.shape ?? shape.def?.shape ?? {};
        for (const [field, schema] of Object.entries(fields)) {
          if (schema.meta?.()?.deprecated) continue;
          expect(names.has(field), `${t.name} ${a.action}.${field}`).toBe(true);
          checked++;
        }
      }
      expect((t.inputSchema as unknown as { properties: { action: { enum: string[] } } }).properties.action.enum).toEqual(
        ACTIONS.filter((x) => x.router === t.name).map((x) => x.action),
      );
    }
    expect(checked).toBeGreaterThan(80);
  });

  it('a panel-only tool stays callable by a plain client and re-checks its scope', async () => {
    const plain = await srv.connect();
    const other = await createTenant(srv.app.library.tenancy, 'Other tenant');
    const facets = await plain.call('svc_asset_panel', 'facets', {});
    expect(facets.isError).toBe(false);
    const foreign = await plain.call('svc_asset_panel', 'facets', { workspace_id: other.workspace_id });
    expect(foreign.error).toMatchObject({ code: 'not_found', field: 'args.workspace_id' });
  });
});
