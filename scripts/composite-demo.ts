/**
 * Main job on real input (issue 5): over real Streamable HTTP with an SDK client, import a demo photo,
 * generate a brand-colour background with the local provider, composite the photo onto it, check the
 * CDN URL over HTTP, and `view` the result. Prints each step's text block.
 * Run: `npx tsx scripts/composite-demo.ts [demo/images/nature/<file>.jpg]` (temp data dir).
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { REPO_ROOT, startTestServer } from '../e2e/mcp/harness.ts';

const photo = process.argv[2] ?? 'demo/images/nature/cyclamen_persicum.jpg';
const srv = await startTestServer({ env: { ATELIER_OCR: '0' } });
const http = await srv.listen();
const client = new Client({ name: 'composite-demo', version: '0' });
await client.connect(
  new StreamableHTTPClientTransport(new URL(http.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${srv.tenant.api_key}` } } }),
);
const call = async (name: string, action: string, args: Record<string, unknown>, progress = false): Promise<CallToolResult> => {
  const r = await client.callTool(
    { name, arguments: { action, args } },
    progress ? { onprogress: (p) => console.log(`  progress ${p.progress}: ${p.message}`) } : undefined,
  );
  if (r.isError) throw new Error(JSON.stringify(r.structuredContent));
  return r;
};
const textOf = (r: CallToolResult): string =>
  r.content
    .filter((b) => b.type === 'text')
    .map((b) => (b as { text: string }).text)
    .join('\n');

const t0 = performance.now();
const imp = await call('svc_asset_import', 'import', {
  data: fs.readFileSync(path.join(REPO_ROOT, photo)).toString('base64'),
  mime_type: 'image/jpeg',
  filename: path.basename(photo),
  tags: ['flower'],
});
console.log(`1) import ${photo}\n${textOf(imp)}\n`);
const bg = await call(
  'svc_drafts',
  'asset_generate',
  {
    prompt: 'soft radial glow backdrop for a spring hero',
    style: 'photography',
    purpose: 'hero_bg',
    aspect: 'landscape',
    quality: 'high',
    brand_colors: ['#f3d1d1', '#8e44ad', '#1f2a44'],
  },
  true,
);
console.log(`2) background\n${textOf(bg)}\n`);
const comp = await call(
  'svc_drafts',
  'asset_generate',
  {
    prompt: 'place the flower photo on the right at 60% with a soft drop shadow',
    style: 'photography',
    purpose: 'product_composite',
    quality: 'high',
    reference_images: [(imp.structuredContent as { url: string }).url, (bg.structuredContent as { url: string }).url],
  },
  true,
);
console.log(`3) composite\n${textOf(comp)}\n`);
const url = (comp.structuredContent as { url: string }).url;
const res = await fetch(url);
console.log(`4) GET ${url} → HTTP ${res.status} ${res.headers.get('content-type')} ${(await res.arrayBuffer()).byteLength} bytes\n`);
const view = await call('svc_assets', 'view', { asset_id: (comp.structuredContent as { asset_id: string }).asset_id });
const img = view.content.find((b) => b.type === 'image') as { data: string; mimeType: string };
console.log(`5) view: image block ${img.mimeType}, ${Buffer.from(img.data, 'base64').length} bytes; text block:\n${textOf(view)}\n`);
if (process.env.DEMO_OUT) fs.writeFileSync(process.env.DEMO_OUT, Buffer.from(img.data, 'base64'));
console.log(`total ${((performance.now() - t0) / 1000).toFixed(1)} s`);
await client.close();
await srv.close();
