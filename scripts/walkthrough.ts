/**
 * A plain MCP client walking through the library against a running server over Streamable HTTP:
 * import every image under a folder (base64 data), find the craft-beer photo by filename and by tag,
 * page through the library, and view one asset.
 * Usage: tsx scripts/walkthrough.ts <mcp-url> <api-key> <theme-id> [images-dir]
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const [url, key, theme, dir = '../shared/data/images'] = process.argv.slice(2);
if (!url || !key || !theme) throw new Error('usage: tsx scripts/walkthrough.ts <mcp-url> <api-key> <theme-id> [images-dir]');
const client = new Client({ name: 'walkthrough', version: '0' });
await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
const call = async (tool: string, action: string, args: Record<string, unknown>) =>
  await client.callTool({ name: tool, arguments: { action, args } });
const mime: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  avif: 'image/avif',
  heic: 'image/heic',
};

const files: string[] = [];
const walk = (d: string): void =>
  void fs
    .readdirSync(d, { withFileTypes: true })
    .forEach((e) =>
      e.isDirectory() ? walk(path.join(d, e.name)) : /\.(jpe?g|png|webp|avif|heic)$/i.test(e.name) && files.push(path.join(d, e.name)),
    );
walk(dir);
for (const f of files.sort()) {
  const ext = f.split('.').pop()!.toLowerCase();
  const t0 = performance.now();
  const r = await call('svc_asset_import', 'import', {
    data: fs.readFileSync(f).toString('base64'),
    mime_type: mime[ext],
    filename: path.basename(f),
    tags: [path.basename(path.dirname(f))],
  });
  const s = r.structuredContent as {
    asset_id: string;
    width: number;
    height: number;
    format: string;
    converted_from?: string;
    deduplicated?: boolean;
  };
  console.log(
    r.isError
      ? `IMPORT FAILED ${path.relative(dir, f)}: ${JSON.stringify((r.structuredContent as { error?: unknown }).error)}`
      : `imported ${path.relative(dir, f)} → ${s.asset_id} ${s.width}×${s.height} ${s.format}${s.converted_from ? ` (from ${s.converted_from})` : ''}${s.deduplicated ? ' [deduplicated]' : ''} in ${Math.round(performance.now() - t0)} ms`,
  );
}
for (const [mode, query] of [
  ['filename', 'craft-beer'],
  ['tags', 'text'],
  ['all', 'craft beer'],
]) {
  const r = await call('svc_asset_library', 'search', { theme_id: theme, mode, query, limit: 5 });
  console.log(`\nsearch mode=${mode} query="${query}":\n${(r.content.at(-1) as { text: string }).text}`);
}
let cursor: string | undefined;
let page = 0;
const seen = new Set<string>();
do {
  const r = await call('svc_asset_library', 'search', { theme_id: theme, limit: 7, ...(cursor ? { cursor } : {}) });
  const s = r.structuredContent as { assets: { id: string; name: string }[]; total: number; next_cursor: string | null };
  s.assets.forEach((a) => seen.add(a.id));
  console.log(`page ${++page}: ${s.assets.map((a) => a.name).join(', ')} (total ${s.total})`);
  cursor = s.next_cursor ?? undefined;
} while (cursor);
console.log(`paged ${page} pages, ${seen.size} distinct assets`);
const beer = (await call('svc_asset_library', 'search', { theme_id: theme, mode: 'filename', query: 'craft-beer', limit: 1 }))
  .structuredContent as { assets: { id: string }[] };
const v = await call('svc_assets', 'view', { asset_id: beer.assets[0]!.id });
const img = v.content.find((c) => c.type === 'image') as { data: string; mimeType: string };
console.log(
  `\nview: image block ${img.mimeType} ${Buffer.from(img.data, 'base64').length} bytes; text block: ${(v.content.find((c) => c.type === 'text') as { text: string }).text}`,
);
await client.close();
