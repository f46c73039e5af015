import { describe, expect, it } from 'vitest';
import type { AssetFacetStore, FacetCount } from '../ports/asset-facet-store.ts';
import type { AssetStore } from '../ports/asset-store.ts';
import { CONTRACT_SCOPE, contractAsset, OTHER_TENANT, OTHER_WORKSPACE } from './fixture.ts';

/** A facet store and the asset store of the same fresh database (tenants and workspaces as in fixture.ts). */
export interface AssetFacetStoreHandle {
  facets: AssetFacetStore;
  assets: AssetStore;
}

export interface AssetFacetStoreFixture {
  create: () => Promise<AssetFacetStoreHandle>;
}

const scope = CONTRACT_SCOPE;
const asset = contractAsset;
/** Rows in a fixed order (the port promises none). */
const sorted = (rows: FacetCount[]): FacetCount[] =>
  [...rows].sort((a, b) => `${a.category ?? ''}/${a.subtype ?? ''}`.localeCompare(`${b.category ?? ''}/${b.subtype ?? ''}`));

/**
 * The behaviour every `AssetFacetStore` must have: counts per (category, subtype) with nulls for
 * unclassified assets, over the whole scope, a kind, an orientation, a MATCH expression of the planner's
 * subset (after enrichment wrote text) or given seqs; never counting another workspace's or tenant's assets.
 */
export function assetFacetStoreContract(name: string, f: AssetFacetStoreFixture): void {
  describe(`AssetFacetStore contract: ${name}`, () => {
    async function library() {
      const h = await f.create();
      const { assets } = h;
      const s = {
        heroWide: await assets.insert(asset({ category: 'hero', subtype: 'banner', width: 2000, height: 1000, tags: ['harbour'] })),
        heroTall: await assets.insert(asset({ category: 'hero', subtype: 'banner', width: 1000, height: 2000, tags: ['harbour', 'boat'] })),
        heroPlain: await assets.insert(asset({ category: 'hero', subtype: null, alt_text: 'boats at dusk' })),
        icon: await assets.insert(asset({ category: 'icon', subtype: 'line', kind: 'svg', width: null, height: null })),
        loose: await assets.insert(asset({ name: 'harbour-view.jpg' })),
      };
      await assets.insert(asset({ category: 'hero', subtype: 'banner', tags: ['harbour'] }, OTHER_WORKSPACE));
      await assets.insert(asset({ category: 'icon', subtype: 'line', tags: ['harbour'] }, OTHER_TENANT));
      return { ...h, s };
    }

    it('counts the scope by category and subtype, under a kind and an orientation', async () => {
      const { facets } = await library();
      expect(sorted(await facets.counts(scope, {}))).toEqual([
        { category: null, subtype: null, n: 1 },
        { category: 'hero', subtype: null, n: 1 },
        { category: 'hero', subtype: 'banner', n: 2 },
        { category: 'icon', subtype: 'line', n: 1 },
      ]);
      expect(await facets.counts(scope, { kind: 'svg' })).toEqual([{ category: 'icon', subtype: 'line', n: 1 }]);
      expect(await facets.counts(scope, { orientation: 'portrait' })).toEqual([{ category: 'hero', subtype: 'banner', n: 1 }]);
      // 1000×1000 (the fixture's size) is square; the svg has no size and matches no orientation
      expect(sorted(await facets.counts(scope, { orientation: 'square' }))).toEqual([
        { category: null, subtype: null, n: 1 },
        { category: 'hero', subtype: null, n: 1 },
      ]);
      expect(await facets.counts({ tenantId: 'tenant-b', workspaceId: 'ws-a' }, {})).toEqual([]);
    });

    it('counts given seqs of the scope only', async () => {
      const { facets, assets, s } = await library();
      const foreign = await assets.insert(asset({ category: 'hero' }, OTHER_WORKSPACE));
      expect(sorted(await facets.countsOf(scope, [s.heroWide, s.heroPlain, s.loose, foreign, 999_999]))).toEqual([
        { category: null, subtype: null, n: 1 },
        { category: 'hero', subtype: null, n: 1 },
        { category: 'hero', subtype: 'banner', n: 1 },
      ]);
      expect(await facets.countsOf(scope, [])).toEqual([]);
      expect(await facets.countsOf(OTHER_TENANT, [s.heroWide])).toEqual([]);
    });
  });
}
