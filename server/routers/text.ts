import type { Asset, AssetPage, MatchKind } from '../../shared/schemas/asset.ts';
import type { Indexing } from '../../shared/schemas/common.ts';
import { printable } from '../domain/printable.ts';

const KIND_WORDS: Record<MatchKind, string> = {
  text: 'words',
  typo: 'corrected words',
  concept: 'related words',
  meaning: 'meaning',
  visual: 'looks',
};

/** How a ranked hit matched, for the model: " — relevance 0.86 (words, meaning)"; empty when browsing. */
export function matchNote(a: { relevance: number | null; matched_by: MatchKind[] | null }): string {
  if (a.relevance === null) return '';
  const how = (a.matched_by ?? []).map((k) => KIND_WORDS[k]);
  return ` — relevance ${a.relevance.toFixed(2)}${how.length ? ` (${how.join(', ')})` : ''}`;
}

/**
 * "showing results for …" and concept words, when the search changed the query. With no matches, a
 * respelling found suggestions at most (a dictionary word the library lacks): it is a "did you mean".
 */
export function queryNote(r: { corrected_query: string | null; expanded_terms: string[] }, matched = true): string {
  const respelt = matched
    ? ` Showing results for "${r.corrected_query}".`
    : ` Its nearest spelling here, "${r.corrected_query}", was searched too; what that finds is not a match.`;
  return (
    `${r.corrected_query ? respelt : ''}` +
    `${r.expanded_terms.length ? ` Also searched related words: ${r.expanded_terms.slice(0, 8).join(', ')}${r.expanded_terms.length > 8 ? ', …' : ''}.` : ''}`
  );
}

/**
 * What an agent should know while enrichment runs (issue 33), or null when nothing is pending.
 * @param what the items counted, e.g. "assets"
 * @param matched whether the answer holds matches: without any, the step is to retry, not to generate
 */
export function indexingNote(indexing: Indexing | undefined, what: string, matched: boolean): string | null {
  if (!indexing) return null;
  const state = `Indexing under way: ${indexing.pending} of ${indexing.total} ${what} are still being analysed`;
  return matched
    ? `${state}; more matches may appear shortly.`
    : `${state}, so what you look for may be among them. Retry this search in a few seconds; do not generate or import yet.`;
}

/** Alt text cut to about `max` characters at a word boundary (the full text is in structuredContent). */
export function shortAlt(alt: string | null, max = 60): string | null {
  if (!alt) return null;
  const t = alt.replace(/\s+/g, ' ').trim();
  if (t.length <= max) return t;
  const cut = t.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[,;:.\s]+$/, '')}…`;
}

/** One compact line per asset: name, id, size in px, short alt text, how it matched, URL (the result budget). */
export function assetLine(
  a: Pick<Asset, 'name' | 'id' | 'width' | 'height' | 'alt_text' | 'url' | 'relevance' | 'matched_by'>,
  index: number,
): string {
  const alt = shortAlt(a.alt_text === null ? null : printable(a.alt_text));
  return `${index}. ${printable(a.name)} — id ${a.id} — ${a.width ?? '?'}×${a.height ?? '?'}${alt ? ` — "${alt}"` : ''}${matchNote(a)} — ${a.url}`;
}

/** What the page holds, in words: the query and how it matched, or browsing, or visual similarity. */
function pageHead(page: AssetPage, filters: string): string {
  const r = page.request;
  const what =
    r.mode === 'similar'
      ? `that look like asset ${r.similar_to_asset_id}, most similar first`
      : r.query
        ? `for "${r.query}" (mode ${r.mode}, matched ${r.match})`
        : '(browsing, newest first)';
  return `${page.total_is_estimate ? 'About ' : ''}${page.total} asset(s) ${what}${filters}.${queryNote(r)}`;
}

/**
 * The text of an asset page, complete for a model without panels and compact: one line per asset
 * (name, id, size in px, short alt text, relevance and how it matched, URL), then paging and where the
 * URLs go. Everything else (tags, kind, format, usage hint, full alt text) is in structuredContent.
 * When nothing matches it says so and names the next step of the decision order (while assets are still
 * being analysed: retry shortly, not generate); suggestions are listed apart, labelled as not matches.
 */
export function describeAssetPage(page: AssetPage, opts: { propsHint?: string } = {}): string {
  const r = page.request;
  const filters =
    `${r.kind ? `, kind ${r.kind}` : ''}${r.category ? `, category ${r.category}` : ''}${r.subtype ? `, subtype ${r.subtype}` : ''}${r.orientation ? `, ${r.orientation} only` : ''}` +
    `${r.degraded_from ? `; search by meaning unavailable, word matches returned (degraded_from ${r.degraded_from})` : ''}` +
    `${r.image_model && r.image_model.status !== 'ready' ? `; image model ${r.image_model.status}, pictures not searched${r.image_model.reason ? ` (${r.image_model.reason})` : ''}` : ''}`;
  if (r.match === 'none' && page.total === 0) {
    const what = r.query ? `"${r.query}"` : 'the source asset';
    const pending = indexingNote(r.indexing, 'assets', false);
    const lines = [
      `No match for ${what} in the library ${pending ? 'yet ' : ''}(mode ${r.mode}${filters}).${queryNote(r, false)}`,
      pending ??
        'Next step: generate the asset with svc_drafts asset_generate, import one with svc_asset_import, or open svc_asset_select so the user can browse.',
    ];
    if (pending) lines.push('If it still finds nothing once no asset is pending, generate or import the asset then.');
    if (page.suggestions.length)
      lines.push('Nearest assets, NOT matches (use only if the user agrees):', ...page.suggestions.map((a, i) => assetLine(a, i + 1)));
    return lines.join('\n');
  }
  const lines = [pageHead(page, filters), ...page.assets.map((a, i) => assetLine(a, i + 1))];
  const pending = indexingNote(r.indexing, 'assets', true);
  if (pending) lines.push(pending);
  if (page.suggestions.length) lines.push('Nearest other assets, NOT matches:', ...page.suggestions.map((a, i) => assetLine(a, i + 1)));
  lines.push(page.has_more ? `More: call again with cursor "${page.next_cursor}".` : 'No more results.');
  if (opts.propsHint && page.assets.length) lines.push(opts.propsHint);
  return lines.join('\n');
}
