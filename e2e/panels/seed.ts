import { createHash, randomUUID } from 'node:crypto';
import { ASSET_TAXONOMY } from '../../shared/schemas/asset.ts';
import { inSqliteTransaction } from '../../server/db/sqlite/batch-transaction.ts';
import type { App } from '../../server/app.ts';
import type { AssetRow, RenditionRow } from '../../server/db/ports/asset-store.ts';
import type { Scope } from '../../server/domain/scope.ts';
import { demoFile, type TestClient } from '../mcp/harness.ts';
import { sqliteOf } from '../../server/stores.ts';

/** Real demo images imported through the public `svc_asset_import` action (real thumbnails). */
export const NATURE = [
  'prairie_falcon',
  'wood_anemones',
  'el_torcal_rocks',
  'cyclamen_persicum',
  'silver_fir',
  'tanners_ridge',
  'notocactus_minimus',
  'polemonium_reptans',
];

/** Import the nature demo images with tags and purposes; returns their ids in import order. */
export async function importNature(client: TestClient, workspaceId: string): Promise<{ id: string; name: string }[]> {
  const out: { id: string; name: string }[] = [];
  for (const [i, n] of NATURE.entries()) {
    const r = await client.call('svc_asset_import', 'import', {
      data: demoFile(`images/nature/${n}.jpg`).toString('base64'),
      mime_type: 'image/jpeg',
      filename: `${n}.jpg`,
      tags: ['nature', n.split('_')[0]!],
      purpose: i % 2 === 0 ? 'product_lifestyle' : 'hero_bg',
      workspace_id: workspaceId,
    });
    if (r.isError) throw new Error(`seed import failed: ${r.text}`);
    out.push({ id: r.structured.asset_id as string, name: r.structured.name as string });
  }
  return out;
}

const PAIRS = Object.entries(ASSET_TAXONOMY).flatMap(([c, subs]) => subs.map((s) => [c, s] as const));

/**
 * Insert `count` library rows directly through the asset store (one SQLite transaction), cloned from
 * real imported assets so every row has a real stored original and thumbnail rendition. Names are
 * `${prefix}-00001.jpg`…; categories/subtypes cycle through the taxonomy. Fast enough for 10,000 rows.
 * @returns the new ids, newest first (the browse order)
 */
export async function seedRows(app: App, scope: Scope, count: number, opts: { prefix: string; templateIds: string[] }): Promise<string[]> {
  const assets = app.stores.assets;
  const templates: { row: AssetRow; renditions: RenditionRow[] }[] = [];
  for (const id of opts.templateIds) {
    const row = await assets.byId(scope, id);
    if (!row) throw new Error(`template ${id} missing`);
    templates.push({ row, renditions: await assets.renditions(row.seq) });
  }
  const ids: string[] = [];
  const base = Date.parse('2024-01-01T00:00:00Z');
  // the port's inserts nest in one transaction: one commit for all rows
  await inSqliteTransaction(sqliteOf(app.stores), async () => {
    for (let i = 1; i <= count; i++) {
      const t = templates[i % templates.length]!;
      const [category, subtype] = PAIRS[i % PAIRS.length]!;
      const id = randomUUID();
      const num = String(i).padStart(5, '0');
      await assets.insert({
        ...t.row,
        id,
        name: `${opts.prefix}-${num}.jpg`,
        alt_text: `${opts.prefix} sample ${num}`,
        tags: [opts.prefix, category],
        user_fields: ['filename', 'tags'],
        category,
        subtype,
        purpose: null,
        source: 'seed',
        source_url: null,
        provenance: null,
        source_sha256: `${t.row.source_sha256.slice(0, 40)}${createHash('sha256').update(`${opts.prefix}-${num}`).digest('hex').slice(0, 24)}`, // unique per prefix and number
        enrichment_status: 'skipped',
        created_at: new Date(base + i * 1000).toISOString(),
        renditions: t.renditions.map(({ asset_seq: _seq, ...r }) => r),
      });
      ids.push(id);
    }
  });
  return ids.reverse();
}
