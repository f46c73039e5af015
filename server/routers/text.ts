import type { AssetPage } from '../../shared/schemas/asset.ts';

/**
 * A compact text rendering of an asset page, complete enough for a model without panels:
 * one line per asset with id, name, size, tags and URL, then paging facts.
 */
export function describeAssetPage(page: AssetPage): string {
  const r = page.request;
  const head = `${page.total} asset(s) ${r.query ? `for "${r.query}" (mode ${r.mode}, matched ${r.match})` : '(browsing, newest first)'}` +
    `${r.kind ? `, kind ${r.kind}` : ''}${r.category ? `, category ${r.category}` : ''}${r.subtype ? `, subtype ${r.subtype}` : ''}${r.orientation ? `, ${r.orientation} only` : ''}` +
    `${r.degraded_from ? `; semantic search unavailable, lexical results returned (degraded_from ${r.degraded_from})` : ''}.`;
  const lines = page.assets.map(
    (a, i) => `${i + 1}. ${a.name} — id ${a.id} — ${a.kind} ${a.width ?? '?'}×${a.height ?? '?'} ${a.format}` +
      `${a.tags.length ? ` — tags: ${a.tags.slice(0, 8).join(', ')}` : ''}${a.alt_text ? ` — alt: ${a.alt_text}` : ''} — use for: ${a.usage_hint} — url: ${a.url}`,
  );
  const tail = page.has_more ? `More results: call again with cursor "${page.next_cursor}".` : 'No more results.';
  return [head, ...lines, tail].join('\n');
}
