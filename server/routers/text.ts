import type { Asset, AssetPage } from '../../shared/schemas/asset.ts';

/** How a ranked hit matched, for the model: " — matched words and meaning (similarity 0.62)", " — similarity 0.94". */
function matchNote(a: Asset): string {
  const sim = a.similarity === null ? null : a.similarity.toFixed(2);
  if (a.matched_by) {
    const how = a.matched_by.length === 2 ? 'words and meaning' : a.matched_by[0] === 'lexical' ? 'words only' : 'meaning only';
    return ` — matched ${how}${sim !== null ? ` (similarity ${sim})` : ''}`;
  }
  return sim !== null ? ` — similarity ${sim}` : '';
}

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
      `${a.tags.length ? ` — tags: ${a.tags.slice(0, 8).join(', ')}` : ''}${a.alt_text ? ` — alt: ${a.alt_text}` : ''}${matchNote(a)} — use for: ${a.usage_hint} — url: ${a.url}`,
  );
  const tail = page.has_more ? `More results: call again with cursor "${page.next_cursor}".` : 'No more results.';
  return [head, ...lines, tail].join('\n');
}
