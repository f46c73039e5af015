import { describe, expect, it } from 'vitest';
import type { CatalogProductInput } from '../../domain/catalog.ts';
import { allOf, anyOf, phrase, prefixPhrase } from '../../domain/search/lexical-query.ts';
import type { LexicalIndex } from '../../domain/search/lexical.ts';
import type { ProductFilters, ProductStore } from '../ports/product-store.ts';
import { syntheticProduct } from '../synthetic-product.ts';
import type { StoreFixture } from './fixture.ts';
import { CATALOG_SCOPES } from './product-store-contract.ts';

/** A product store and the lexical index factory over the same database. */
export interface ProductLexicalHandle {
  products: ProductStore;
  lexical: (scope: (typeof CATALOG_SCOPES)['a'], f: ProductFilters) => LexicalIndex;
}

const { a, b } = CATALOG_SCOPES;
const file = { at: '2026-03-01T10:00:00.123Z', replaceCollections: false };
const p = syntheticProduct;
const ACTIVE: ProductFilters = { statuses: ['ACTIVE'] };
const variant = (title: string, sku: string): CatalogProductInput['variants'][number] => ({
  gid: `gid://shopify/ProductVariant/${sku}`,
  title,
  price: '1.00',
  compare_at_price: null,
  sku,
  available: true,
  inventory_quantity: null,
  image_url: null,
  selected_options: [],
});

/**
 * The behaviour every product `LexicalIndex` must have for the lexical planner (domain/search/lexical.ts), as
 * vitest cases on SQLite FTS5 and PostgreSQL alike: Porter stems of every indexed column (title, handle,
 * vendor, type, tags, description, variant titles and SKUs), phrases, prefixes, AND/OR, the title's
 * weight over the description's, the request filters in `search` only, the snapshot bound, store
 * scoping, and the vocabulary as the planner reads it. Rankings are compared where the field weights
 * decide them, not where BM25 and ts_rank_cd may differ.
 */
export function productLexicalContract(name: string, f: StoreFixture<ProductLexicalHandle>): void {
  describe(`product LexicalIndex contract: ${name}`, () => {
    it('matches Porter stems of every column, phrases, prefixes, AND and OR, and ranks a title above a description', async () => {
      const { store: s } = await f.create();
      const [inDescription, inTitle, inTags, other, sku] = await s.products.upsertMany(
        a,
        [
          p(1, { title: 'Linen top', description_html: '<p>Soft, like your favourite shirts.</p>' }),
          p(2, { title: 'Blue Shirts', handle: 'blue-shirt' }),
          p(3, { title: 'Tee', tags: ['Shirt', 'summer'], vendor: 'Acme', product_type: 'Tops' }),
          p(4, { title: 'Crème brûlée pot' }),
          p(5, { title: 'Widget', variants: [variant('Default Title', 'ALPHA-WIDGET-M'), variant('Large', 'AW-L')] }),
        ],
        'json',
        file,
      );
      await s.products.upsertMany(b, [p(9, { title: 'Shirt of store b' })], 'json', file);
      const ix = s.lexical(a, ACTIVE);
      const shirt = phrase('shirt');
      expect(await ix.size()).toBe(5);
      expect(await ix.count(shirt)).toBe(3);
      const hits = await ix.search(shirt, 10);
      expect(hits.total).toBe(3);
      expect(hits.seqs).toHaveLength(3);
      expect(hits.seqs[0]).toBe(inTitle);
      expect(hits.seqs.at(-1)).toBe(inDescription);
      expect(new Set(hits.seqs)).toEqual(new Set([inDescription, inTitle, inTags]));
      expect((await ix.search(phrase('blue shirt'), 10)).seqs).toEqual([inTitle]);
      expect((await ix.search(phrase('shirt blue'), 10)).seqs).toEqual([]);
      expect((await ix.search(prefixPhrase('shir'), 10)).total).toBe(3);
      expect((await ix.search(allOf([shirt, phrase('summer')]), 10)).seqs).toEqual([inTags]);
      expect(new Set((await ix.search(anyOf([phrase('acme'), phrase('top')]), 10)).seqs)).toEqual(new Set([inDescription, inTags]));
      expect((await ix.search(allOf([phrase('creme'), phrase('brulee')]), 10)).seqs).toEqual([other]);
      // variant titles and SKUs, but never "Default Title"
      expect((await ix.search(phrase('alpha widget m'), 10)).seqs).toEqual([sku]);
      expect((await ix.search(phrase('large'), 10)).seqs).toEqual([sku]);
      expect(await ix.count(phrase('default'))).toBe(0);
      expect(await ix.count(phrase(''))).toBe(0);
      expect((await ix.search(phrase('nothing'), 10)).seqs).toEqual([]);
      expect(await ix.within(shirt, [inTitle!, other!, inTags!, 987654])).toEqual(new Set([inTitle, inTags]));
      expect(await ix.within(shirt, [])).toEqual(new Set());
      expect(await ix.sampleText(phrase('brulee'))).toContain('Crème brûlée pot');
      expect(await ix.sampleText(phrase('nothing'))).toBeNull();
    });

    it('applies the request filters in search only, the snapshot bound everywhere, and keeps stores apart', async () => {
      const { store: s } = await f.create();
      const col = [{ handle: 'Sale', title: 'Sale', gid: null }];
      const [plain, draft, typed, inSale] = await s.products.upsertMany(
        a,
        [
          p(1, { title: 'lamp' }),
          p(2, { title: 'lamp draft', status: 'DRAFT' }),
          p(3, { title: 'lamp typed', product_type: 'Lighting' }),
          p(4, { title: 'lamp on sale', collections: col }),
        ],
        'json',
        file,
      );
      const [theirs] = await s.products.upsertMany(b, [p(5, { title: 'lamp' })], 'json', file);
      const lamp = phrase('lamp');
      const seqs = async (fl: Partial<ProductFilters>): Promise<Set<number>> =>
        new Set((await s.lexical(a, { ...ACTIVE, ...fl }).search(lamp, 10)).seqs);
      expect(await seqs({})).toEqual(new Set([plain, typed, inSale]));
      expect(await seqs({ statuses: ['ACTIVE', 'DRAFT'] })).toEqual(new Set([plain, draft, typed, inSale]));
      expect(await seqs({ productType: 'LIGHTING' })).toEqual(new Set([typed]));
      expect(await seqs({ collection: 'sale' })).toEqual(new Set([inSale]));
      expect(await seqs({ excludeSeq: plain })).toEqual(new Set([typed, inSale]));
      const filtered = s.lexical(a, { ...ACTIVE, collection: 'sale' });
      expect(await filtered.count(lamp)).toBe(4);
      expect((await filtered.search(lamp, 10)).total).toBe(1);
      const snap = s.lexical(a, { ...ACTIVE, maxSeq: draft });
      expect(await snap.size()).toBe(2);
      expect(await snap.count(lamp)).toBe(2);
      expect((await snap.search(lamp, 10)).seqs).toEqual([plain]);
      // `within` checks candidates the planner got from this scope's own searches (SQLite does not re-check the store)
      expect(await s.lexical(a, ACTIVE).within(lamp, [draft!, plain!])).toEqual(new Set([plain, draft]));
      const theirsIx = s.lexical(b, ACTIVE);
      expect(await theirsIx.size()).toBe(1);
      expect((await theirsIx.search(lamp, 10)).seqs).toEqual([theirs]);
    });

    it('answers the vocabulary by prefix with document counts and which stems it holds, following writes', async () => {
      const { store: s } = await f.create();
      await s.products.upsertMany(
        a,
        [p(1, { title: 'Zebra zebras' }), p(2, { title: 'zebra', tags: ['zephyr'] }), p(3, { title: 'Zeppelin' })],
        'json',
        file,
      );
      const ix = () => s.lexical(a, ACTIVE);
      const vocab = await ix().vocabulary('ze');
      expect(vocab).toContainEqual({ term: 'zebra', docs: 2 });
      expect(vocab).toContainEqual({ term: 'zephyr', docs: 1 });
      expect(vocab).toContainEqual({ term: 'zeppelin', docs: 1 });
      expect(await ix().vocabulary('')).toEqual([]);
      expect(await ix().known(['zebra', 'zeppelin', 'quagga', 'zebra'])).toEqual(new Set(['zebra', 'zeppelin']));
      expect(await ix().known([])).toEqual(new Set());
      await s.products.upsertMany(a, [p(3, { title: 'Airship' })], 'json', file);
      await s.products.deleteByGids(a, ['gid://shopify/Product/1']);
      expect(await ix().known(['zebra', 'zeppelin', 'airship'])).toEqual(new Set(['zebra', 'airship']));
      expect(await ix().vocabulary('zeb')).toEqual([{ term: 'zebra', docs: 1 }]);
    });
  });
}
