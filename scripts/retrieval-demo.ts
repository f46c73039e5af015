/**
 * Main job on real input (issue 4): import every image of demo/images and demo/ocr through the MCP
 * import action, wait for enrichment, and print the top 3 of semantic, OCR and similar queries.
 * Run: `npx tsx scripts/retrieval-demo.ts` (OCR on, static embedder, temp data dir).
 */
import fs from 'node:fs';
import path from 'node:path';
import { DEMO_DIR, startTestServer } from '../e2e/mcp/harness.ts';
import { sqliteOf } from '../server/stores.ts';

const t0 = performance.now();
const srv = await startTestServer({ env: { ATELIER_OCR: '1' } });
const c = await srv.connect();
const theme = srv.tenant.theme_id;
const files = ['images', 'ocr']
  .flatMap((d) => fs.readdirSync(path.join(DEMO_DIR, d), { recursive: true, encoding: 'utf8' }).map((f) => path.join(d, f)))
  .filter((f) => /\.(jpe?g|png|webp|avif|heic|gif)$/i.test(f));
const MIME: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  avif: 'image/avif',
  heic: 'image/heic',
  gif: 'image/gif',
};
const ids = new Map<string, string>();
for (const f of files) {
  const r = await c.call('svc_asset_import', 'import', {
    data: fs.readFileSync(path.join(DEMO_DIR, f)).toString('base64'),
    mime_type: MIME[path.extname(f).slice(1).toLowerCase()],
    filename: path.basename(f),
  });
  if (r.isError) console.log('import failed', f, r.error);
  else ids.set(path.basename(f), r.structured.asset_id as string);
}
const tImport = performance.now();
for (;;) {
  const st = sqliteOf(srv.app.stores).prepare(`SELECT enrichment_status s, count(*) n FROM assets GROUP BY 1`).all() as {
    s: string;
    n: number;
  }[];
  if (!st.some((x) => x.s === 'pending' || x.s === 'running')) {
    console.log('enrichment:', JSON.stringify(st));
    break;
  }
  await new Promise((r) => setTimeout(r, 250));
}
console.log(
  `imported ${ids.size} files in ${((tImport - t0) / 1000).toFixed(1)} s; enrichment done after ${((performance.now() - tImport) / 1000).toFixed(1)} s more`,
);
const show = async (label: string, args: Record<string, unknown>) => {
  const r = await c.call('svc_asset_library', 'search', { theme_id: theme, limit: 3, ...args });
  const req = r.structured.request as { mode: string; match: string; degraded_from: string | null };
  const rows = ((r.structured.assets ?? []) as { name: string; score: number | null }[]).map(
    (a, i) => `  ${i + 1}. ${a.name} (${a.score?.toFixed(3)})`,
  );
  console.log(
    `\n${label} → mode ${req?.mode}, match ${req?.match}, total ${String(r.structured.total)}${req?.degraded_from ? `, degraded_from ${req.degraded_from}` : ''}\n${rows.join('\n') || '  (no results)'}`,
  );
};
for (const q of process.argv.slice(2).length
  ? process.argv.slice(2)
  : [
      'bird of prey',
      'evergreen conifer tree',
      'drink label',
      'spiny desert plant',
      'snowy mountain peak',
      'store front',
      'reading a novel',
    ])
  await show(`semantic "${q}"`, { mode: 'semantic', query: q });
for (const q of ['cosmic void', 'weekend warrior', 'quick brown dog', 'clearing cheque'])
  await show(`ocr "${q}"`, { mode: 'ocr', query: q });
for (const src of ['portrait.jpg', 'simple.png', 'silver_fir.jpg'])
  await show(`similar to ${src}`, { mode: 'similar', similar_to_asset_id: ids.get(src) });
await show('all "falcon"', { mode: 'all', query: 'falcon' });
const alt = sqliteOf(srv.app.stores)
  .prepare(`SELECT name, alt_text, auto_tags, substr(coalesce(ocr_text,''),1,80) ocr FROM assets ORDER BY seq`)
  .all();
console.log('\nalt text / auto tags / OCR (first 80 chars):');
for (const a of alt as Record<string, string>[]) console.log(`  ${a.name}: ${a.alt_text} | ${a.auto_tags} | ${JSON.stringify(a.ocr)}`);
await srv.close();
