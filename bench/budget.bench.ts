/**
 * What the model pays in context (issue 12): bytes and estimated tokens of the initialize result,
 * tools/list for a plain client and for an MCP Apps client, a default search (50 assets), svc_discover
 * without args, and get_product of 20 ids, over the demo library (22 photos, enriched, cloned to 66
 * assets with their real metadata) and the demo catalog. Budgets (issue 12): tools/list ≤ 12 KB plain and
 * ≤ 16 KB for an Apps client; search of 50 ≤ 20 KB (text + structuredContent); svc_discover ≤ 6 KB.
 * Tokens are estimated with the o200k_base BPE (gpt-tokenizer): a proxy, other models' tokenizers differ
 * by some tens of percent on JSON, UUIDs and URLs.
 */
import { randomUUID } from 'node:crypto';
import { encode } from 'gpt-tokenizer';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { startTestServer } from '../e2e/mcp/harness.ts';
import { waitForEnrichment } from '../e2e/mcp/enrichment-helpers.ts';
import { APPS_CLIENT_CAPABILITIES, connectWeighing, jsonBytes } from '../e2e/mcp/wire-size.ts';
import { inSqliteTransaction } from '../server/db/sqlite/batch-transaction.ts';
import { seedDemo } from '../server/seed.ts';
import { table } from './stats.ts';
import { sqliteOf } from '../server/stores.ts';

const KB = 1024;

/** Row of the table: what, bytes, KiB, estimated tokens, budget. */
function row(what: string, value: unknown, budgetBytes: number | null, parts?: string): (string | number)[] {
  const json = JSON.stringify(value);
  const bytes = Buffer.byteLength(json, 'utf8');
  const verdict = budgetBytes === null ? '—' : `${(budgetBytes / KB).toFixed(0)} KiB ${bytes <= budgetBytes ? 'ok' : 'OVER'}`;
  return [what, bytes, (bytes / KB).toFixed(1), encode(json).length, verdict, parts ?? ''];
}

function split(r: unknown): string {
  const c = r as CallToolResult;
  return `text ${jsonBytes(c.content)} B, structuredContent ${jsonBytes(c.structuredContent)} B`;
}

export default async function budgetBench(): Promise<void> {
  const srv = await startTestServer({ env: { ATELIER_ENRICHMENT: '1', ATELIER_OCR: '0' } });
  try {
    const demo = await seedDemo(srv.app);
    const apiKey = demo.api_key;
    if (!apiKey) throw new Error('seed-demo created no API key on a fresh data dir');
    const plain = await connectWeighing(srv.app, apiKey);
    const initialize = plain.lastResult();
    await waitForEnrichment(plain, demo.theme_id, 180_000);
    // Clone every demo asset twice under new names with its real metadata, so a default page holds 50.
    const scope = { tenantId: demo.tenant_id, workspaceId: demo.workspace_id };
    // the bench writes through the asset store directly (inside one transaction)
    const assets = srv.app.stores.assets;
    const originals = (await assets.browse(scope, { maxSeq: await assets.maxSeq(scope) }, 0, 100)).rows;
    // the store inserts user fields only; the copies take the originals' automatic tags as well
    const copyAutoTags = sqliteOf(srv.app.stores).prepare('UPDATE assets SET auto_tags = ? WHERE id = ?');
    await inSqliteTransaction(sqliteOf(srv.app.stores), async () => {
      for (const copy of [2, 3]) {
        for (const row of originals) {
          const dot = row.name.lastIndexOf('.');
          const id = randomUUID();
          await assets.insert({
            ...row,
            id,
            name: `${row.name.slice(0, dot)}-${copy}${row.name.slice(dot)}`,
            source_sha256: `${row.source_sha256.slice(0, 60)}${String(copy).padStart(4, '0')}`,
            renditions: (await assets.renditions(row.seq)).map(({ asset_seq: _seq, ...r }) => r),
          });
          copyAutoTags.run(JSON.stringify(row.auto_tags), id);
        }
      }
    });

    await plain.client.listTools();
    const toolsPlain = plain.lastResult();
    const apps = await connectWeighing(srv.app, apiKey, APPS_CLIENT_CAPABILITIES);
    await apps.client.listTools();
    const toolsApps = apps.lastResult();

    await plain.call('svc_asset_library', 'search', { theme_id: demo.theme_id });
    const search = plain.lastResult();
    const searchCount = ((search as CallToolResult).structuredContent as { assets: unknown[] }).assets.length;
    await plain.call('svc_discover', 'discover', {});
    const discover = plain.lastResult();
    const list = await plain.call('svc_catalog', 'list_products', { limit: 20 });
    const ids = (list.structured.items as { product_id: string }[]).map((p) => p.product_id);
    await plain.call('svc_catalog', 'get_product', { product_ids: ids });
    const products = plain.lastResult();

    const rows = [
      row('initialize result', initialize, null),
      row(`tools/list, plain client (${(toolsPlain as { tools: unknown[] }).tools.length} tools)`, toolsPlain, 12 * KB),
      row(`tools/list, MCP Apps client (${(toolsApps as { tools: unknown[] }).tools.length} tools)`, toolsApps, 16 * KB),
      row(`search, default (${searchCount} assets)`, search, 20 * KB, split(search)),
      row('svc_discover, no args', discover, 6 * KB, split(discover)),
      row(`get_product, ${ids.length} ids`, products, null, split(products)),
    ];
    table(['what the client receives (JSON-RPC result)', 'bytes', 'KiB', 'tokens (o200k est.)', 'budget', 'parts'], rows);
    await plain.close();
    await apps.close();
  } finally {
    await srv.close();
  }
}
