import { describe, expect, it } from 'vitest';
import type { AssetPage } from '../../shared/schemas/asset.ts';
import { describeAssetPage, indexingNote } from './text.ts';

const request: AssetPage['request'] = {
  query: 'alpine lake',
  mode: 'all',
  kind: null,
  category: null,
  subtype: null,
  orientation: null,
  limit: 10,
  theme_id: 't',
  workspace_id: 'w',
  similar_to_asset_id: null,
  degraded_from: null,
  match: 'none',
  corrected_query: null,
  expanded_terms: [],
};
const empty: AssetPage = { assets: [], total: 0, total_is_estimate: false, suggestions: [], next_cursor: null, has_more: false, request };

describe('index state in the text of an answer', () => {
  it('says nothing when nothing is pending', () => {
    expect(indexingNote(undefined, 'assets', false)).toBeNull();
    expect(describeAssetPage(empty)).toContain('Next step: generate the asset');
  });

  it('a no-match while assets are analysed says to retry, and to generate only once nothing is pending', () => {
    const text = describeAssetPage({ ...empty, request: { ...request, indexing: { pending: 5, total: 22 } } });
    expect(text.split('\n')).toEqual([
      'No match for "alpine lake" in the library yet (mode all).',
      'Indexing under way: 5 of 22 assets are still being analysed, so what you look for may be among them. Retry this search in a few seconds; do not generate or import yet.',
      'If it still finds nothing once no asset is pending, generate or import the asset then.',
    ]);
  });

  it('a page with matches says more may appear', () => {
    expect(indexingNote({ pending: 1, total: 3 }, 'products', true)).toBe(
      'Indexing under way: 1 of 3 products are still being analysed; more matches may appear shortly.',
    );
  });
});
