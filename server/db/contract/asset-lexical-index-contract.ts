import { describe, expect, it } from 'vitest';
import { allWords } from '../../domain/search/lexical-query.ts';
import type { LexicalIndex } from '../../domain/search/lexical.ts';
import type { Scope } from '../../domain/scope.ts';
import type { AssetFilters, AssetStore } from '../ports/asset-store.ts';
import { CONTRACT_SCOPE, contractAsset, OTHER_TENANT, OTHER_WORKSPACE } from './fixture.ts';

/** The asset lexical index and the asset store of the same fresh database (tenants and workspaces as in AssetStoreFixture). */
export interface AssetLexicalIndexHandle {
  /** the index of one scope under filters, as search builds it (SQLite `createLexicalIndexes(db).assets`, PostgreSQL `createPgLexicalIndexes(pool).assets`) */
  lexical: (scope: Scope, f: AssetFilters) => LexicalIndex;
  assets: AssetStore;
  /** TEST ONLY: what enrichment writes (OCR text, automatic tags as a JSON array) — its port comes later. */
  setEnrichedText: (seq: number, ocrText: string | null, autoTags: string[]) => Promise<void>;
}

export interface AssetLexicalIndexFixture {
  create: () => Promise<AssetLexicalIndexHandle>;
}

/** Assets of `scope` under the filters holding every word, best first: the index's `search` of the planner's exact-AND expression. */
interface WordSearch {
  search(scope: Scope, words: string[], f: AssetFilters, k: number): Promise<{ seqs: number[]; total: number }>;
}
const wordSearch = (lexical: AssetLexicalIndexHandle['lexical']): WordSearch => ({
  async search(scope, words, f, k) {
    const r = await lexical(scope, f).search(allWords(words), k);
    return { seqs: r.seqs, total: r.total };
  },
});

const scope = CONTRACT_SCOPE;
const otherWorkspace = OTHER_WORKSPACE;
const otherTenant = OTHER_TENANT;
const asset = contractAsset;

/**
 * What the asset `LexicalIndex` (domain/search/lexical.ts; SQLite FTS5 server/db/sqlite/lexical-index.ts, PostgreSQL
 * server/db/postgres/lexical-index.ts) must answer for words: which assets match (every field, both tag
 * kinds but not automatic colour words, stems, folded diacritics, all words required), scope isolation,
 * filters, limits with totals, the index following enrichment's writes, updates and deletes, and the
 * heavier field first in a case where every ranking function must agree. Not the full order: BM25 and
 * ts_rank_cd rank differently.
 */
export function assetLexicalIndexContract(name: string, f: AssetLexicalIndexFixture): void {
  const create = async (): Promise<Omit<AssetLexicalIndexHandle, 'lexical'> & { search: WordSearch }> => {
    const h = await f.create();
    return { ...h, search: wordSearch(h.lexical) };
  };
  describe(`asset LexicalIndex contract, words: ${name}`, () => {
    it('matches a word in any field, stemmed and without diacritics; automatic colour words are not words', async () => {
      const { search, assets, setEnrichedText } = await create();
      const fileName = await assets.insert(asset({ name: 'RedFox_0042.jpg' }));
      const nameWords = await assets.insert(asset({ name: 'IMG_0001.jpg', name_words: 'mountain lake' }));
      const userTag = await assets.insert(asset({ tags: ['flower', 'blue'] }));
      const alt = await assets.insert(asset({ alt_text: 'A Café au lait on a wooden table' }));
      const ocr = await assets.insert(asset({}));
      await setEnrichedText(ocr, 'SUMMER SALE fifty percent', ['beach', 'blue']);
      const hits = async (...words: string[]): Promise<number[]> => (await search.search(scope, words, {}, 50)).seqs.sort((a, b) => a - b);
      expect(await hits('redfox')).toEqual([fileName]);
      expect(await hits('0042')).toEqual([fileName]);
      expect(await hits('mountains')).toEqual([nameWords]);
      expect(await hits('flowers')).toEqual([userTag]);
      expect(await hits('cafe')).toEqual([alt]);
      expect(await hits('café')).toEqual([alt]);
      expect(await hits('tables')).toEqual([alt]);
      expect(await hits('sale')).toEqual([ocr]);
      expect(await hits('beach')).toEqual([ocr]);
      // "blue" is a user tag of one asset and an automatic colour tag of the other: only the user's counts
      expect(await hits('blue')).toEqual([userTag]);
      expect(await hits('zebra')).toEqual([]);
    });

    it('requires every word', async () => {
      const { search, assets } = await create();
      const both = await assets.insert(asset({ tags: ['red', 'fox'] }));
      await assets.insert(asset({ tags: ['red', 'barn'] }));
      expect(await search.search(scope, ['red', 'fox'], {}, 10)).toEqual({ seqs: [both], total: 1 });
      expect(await search.search(scope, ['red', 'zebra'], {}, 10)).toEqual({ seqs: [], total: 0 });
    });

    it('never returns an asset of another workspace or tenant', async () => {
      const { search, assets } = await create();
      const mine = await assets.insert(asset({ tags: ['lighthouse'] }));
      const theirs = await assets.insert(asset({ tags: ['lighthouse'] }, otherWorkspace));
      const foreign = await assets.insert(asset({ tags: ['lighthouse'] }, otherTenant));
      expect(await search.search(scope, ['lighthouse'], {}, 10)).toEqual({ seqs: [mine], total: 1 });
      expect(await search.search(otherWorkspace, ['lighthouse'], {}, 10)).toEqual({ seqs: [theirs], total: 1 });
      expect(await search.search(otherTenant, ['lighthouse'], {}, 10)).toEqual({ seqs: [foreign], total: 1 });
      expect(await search.search({ tenantId: 'tenant-b', workspaceId: 'ws-a' }, ['lighthouse'], {}, 10)).toEqual({ seqs: [], total: 0 });
    });

    it('applies the filters and the limit, with the total under the filters', async () => {
      const { search, assets } = await create();
      const wide = await assets.insert(asset({ tags: ['tree'], width: 2000, height: 1000, category: 'banner' }));
      const tall = await assets.insert(asset({ tags: ['tree'], width: 1000, height: 2000, category: 'banner' }));
      const svg = await assets.insert(asset({ tags: ['tree'], kind: 'svg' }));
      const sorted = async (fl: AssetFilters): Promise<[number[], number]> => {
        const r = await search.search(scope, ['tree'], fl, 10);
        return [r.seqs.sort((a, b) => a - b), r.total];
      };
      expect(await sorted({ category: 'banner' })).toEqual([[wide, tall], 2]);
      expect(await sorted({ orientation: 'portrait' })).toEqual([[tall], 1]);
      expect(await sorted({ kind: 'svg' })).toEqual([[svg], 1]);
      expect(await sorted({ maxSeq: tall })).toEqual([[wide, tall], 2]);
      expect(await sorted({ maxSeq: tall, excludeSeq: wide })).toEqual([[tall], 1]);
      const top = await search.search(scope, ['tree'], {}, 2);
      expect(top.seqs).toHaveLength(2);
      expect(top.total).toBe(3);
      // equal text: newest first
      expect(top.seqs).toEqual([svg, tall]);
    });

    it('a word in the name ranks above the same word in the OCR text', async () => {
      const { search, assets, setEnrichedText } = await create();
      const inOcr = await assets.insert(asset({ name: 'tree.jpg' }));
      await setEnrichedText(inOcr, 'fox', []);
      const inName = await assets.insert(asset({ name: 'fox.jpg' }));
      await setEnrichedText(inName, 'tree', []);
      expect((await search.search(scope, ['fox'], {}, 10)).seqs).toEqual([inName, inOcr]);
      expect((await search.search(scope, ['tree'], {}, 10)).seqs).toEqual([inOcr, inName]);
    });

    it('follows metadata updates and deletes', async () => {
      const { search, assets } = await create();
      const a = asset({ tags: ['oak'] });
      const seq = await assets.insert(a);
      await assets.updateMetadata(scope, seq, { ...a, name_words: '', tags: ['pine'], alt_text: 'snowy ridge' });
      expect((await search.search(scope, ['oak'], {}, 10)).seqs).toEqual([]);
      expect((await search.search(scope, ['pine'], {}, 10)).seqs).toEqual([seq]);
      expect((await search.search(scope, ['ridge'], {}, 10)).seqs).toEqual([seq]);
      await assets.deleteMany(scope, [seq]);
      expect(await search.search(scope, ['pine'], {}, 10)).toEqual({ seqs: [], total: 0 });
    });
  });
}
