import { describe, expect, it } from 'vitest';
import { allOf, anyOf, inColumn, phrase, prefixPhrase, type LexicalExpr } from '../../domain/search/lexical-query.ts';
import type { LexicalIndex } from '../../domain/search/lexical.ts';
import type { Scope } from '../../domain/scope.ts';
import type { AssetFilters, AssetStore } from '../ports/asset-store.ts';
import { CONTRACT_SCOPE, contractAsset, OTHER_TENANT, OTHER_WORKSPACE } from './fixture.ts';

/** A lexical index factory and the asset store of the same fresh database (tenants and workspaces as in AssetStoreFixture). */
export interface LexicalIndexHandle {
  /** `createLexicalIndexes(db)` (SQLite) or `createPgLexicalIndexes(pool)` (PostgreSQL) */
  indexes: { assets(scope: Scope, f: AssetFilters): LexicalIndex };
  assets: AssetStore;
  /** TEST ONLY: what enrichment writes (OCR text, automatic tags as a JSON array), as a plain UPDATE — its port comes later. */
  setEnrichedText: (seq: number, ocrText: string | null, autoTags: string[]) => Promise<void>;
}

export interface LexicalIndexFixture {
  create: () => Promise<LexicalIndexHandle>;
}

const scope = CONTRACT_SCOPE;
const asset = contractAsset;
const sorted = (xs: Iterable<number>): number[] => [...xs].sort((a, b) => a - b);
/** A case's label in a failure message. */
const label = (e: LexicalExpr): string => JSON.stringify(e);

/**
 * The behaviour every asset `LexicalIndex` (domain/search/lexical.ts) must have for the expressions the
 * planner builds (domain/search/lexical-query.ts): match sets of words, stems, folded diacritics, stemmed prefixes, phrases (never across
 * fields), AND/OR and field filters; automatic colour tags are no words; counts and sizes under the
 * snapshot bound but not the filters, `search` under both; the vocabulary with document counts; scope
 * isolation; the index following updates, enrichment writes and deletes; and the one ranking every
 * function must agree on (the same word alone in a heavier field ranks first, equal texts newest first).
 * Not the full ranking order: BM25 and ts_rank_cd differ. The vocabulary is only checked with one
 * workspace holding words (SQLite's spans the file, PostgreSQL's is the workspace's).
 */
export function lexicalIndexContract(name: string, f: LexicalIndexFixture): void {
  describe(`LexicalIndex contract: ${name}`, () => {
    /** A library of one asset per case, in ws-a. */
    async function library() {
      const h = await f.create();
      const { assets, setEnrichedText } = h;
      const s = {
        fileName: await assets.insert(asset({ name: 'RedFox_0042.jpg' })),
        nameWords: await assets.insert(asset({ name: 'IMG_0001.jpg', name_words: 'mountain lake' })),
        userTag: await assets.insert(asset({ tags: ['flower', 'blue'] })),
        alt: await assets.insert(asset({ alt_text: 'A Café au lait on a wooden table' })),
        ocr: await assets.insert(asset({})),
        runner: await assets.insert(asset({ name: 'running-man.png' })),
        rune: await assets.insert(asset({ tags: ['rune stone'] })),
        split: await assets.insert(asset({ name: 'red.jpg', tags: ['fox'] })),
      };
      await setEnrichedText(s.ocr, 'SUMMER SALE fifty percent', ['beach', 'blue']);
      const idx = (fl: AssetFilters = {}): LexicalIndex => h.indexes.assets(scope, fl);
      return { ...h, s, idx };
    }

    it('matches words in every field: stems, folded diacritics, stemmed prefixes, phrases within one field, AND/OR, empty phrases', async () => {
      const { s, idx } = await library();
      const lakeOrBeach = anyOf([phrase('lake'), phrase('beach')]);
      const cases: [LexicalExpr, number[]][] = [
        [phrase('redfox'), [s.fileName]],
        [phrase('0042'), [s.fileName]],
        [phrase('mountains'), [s.nameWords]],
        [phrase('flowers'), [s.userTag]],
        [phrase('cafe'), [s.alt]],
        [phrase('Café'), [s.alt]],
        [phrase('tables'), [s.alt]],
        [phrase('sale'), [s.ocr]],
        [phrase('beach'), [s.ocr]],
        // a user tag is a word; the same word as an automatic colour tag is not
        [phrase('blue'), [s.userTag]],
        // a prefix is stemmed: "runs"* is run*, which finds "running" (run) and "rune"
        [prefixPhrase('runs'), [s.runner, s.rune]],
        [prefixPhrase('flo'), [s.userTag]],
        [phrase('red jpg'), [s.split]],
        [phrase('jpg fox'), []],
        [phrase('rune stone'), [s.rune]],
        [phrase('stone rune'), []],
        [lakeOrBeach, [s.nameWords, s.ocr]],
        [allOf([phrase('mountain'), phrase('lake')]), [s.nameWords]],
        [allOf([phrase('mountain'), phrase('beach')]), []],
        [allOf([phrase('fox'), anyOf([phrase('zebra'), phrase('red')])]), [s.split]],
        [phrase(''), []],
        [phrase('zebra'), []],
      ];
      for (const [match, want] of cases) {
        expect([label(match), await idx().count(match)]).toEqual([label(match), want.length]);
        expect([label(match), sorted((await idx().search(match, 50)).seqs)]).toEqual([label(match), want]);
      }
      const all = Object.values(s);
      expect(sorted(await idx().within(lakeOrBeach, all))).toEqual([s.nameWords, s.ocr]);
      expect(sorted(await idx().within(lakeOrBeach, [s.ocr, s.alt]))).toEqual([s.ocr]);
      expect(await idx().within(phrase('zebra'), all)).toEqual(new Set());
    });

    it('answers which candidates hold a counted expression, and how many hold any of several, as a fresh index does', async () => {
      const { s, idx } = await library();
      const all = Object.values(s);
      const lake = phrase('lake');
      const beachOrFlowers = anyOf([phrase('beach'), phrase('flowers')]);
      const fox = phrase('fox');
      const zebra = phrase('zebra');
      const exprs = [lake, beachOrFlowers, fox, zebra, allOf([phrase('mountain'), phrase('lake')])];
      const one = idx();
      for (const e of exprs) await one.count(e);
      for (const e of exprs) expect([label(e), sorted(await one.within(e, all))]).toEqual([label(e), sorted(await idx().within(e, all))]);
      const union = anyOf([phrase('lake'), phrase('beach'), phrase('flowers'), phrase('fox')]);
      expect(await one.countAny([lake, beachOrFlowers, fox], union)).toBe(await idx().count(union));
      expect(await idx().countAny([lake, fox], anyOf([lake, fox]))).toBe(2);
      expect(await one.countAny([zebra, fox], anyOf([zebra, fox]))).toBe(1);
    });

    it('limits an expression to one field (inColumn)', async () => {
      const { s, idx } = await library();
      const cases: [LexicalExpr, number[]][] = [
        [inColumn(phrase('red'), 'name'), [s.split]],
        [inColumn(phrase('red'), 'tags'), []],
        [inColumn(phrase('fox'), 'tags'), [s.split]],
        [inColumn(phrase('fox'), 'name'), []],
        [inColumn(phrase('lake'), 'name'), [s.nameWords]],
        [inColumn(phrase('tables'), 'alt_text'), [s.alt]],
        [inColumn(phrase('sale'), 'ocr_text'), [s.ocr]],
        [inColumn(phrase('sale'), 'tags'), []],
        [inColumn(phrase('beach'), 'tags'), [s.ocr]],
        [inColumn(allOf([anyOf([phrase('mountain'), phrase('zebra')]), phrase('lake')]), 'name'), [s.nameWords]],
        [inColumn(prefixPhrase('runs'), 'name'), [s.runner]],
      ];
      for (const [match, want] of cases) {
        expect([label(match), await idx().count(match)]).toEqual([label(match), want.length]);
        expect([label(match), sorted((await idx().search(match, 50)).seqs)]).toEqual([label(match), want]);
      }
    });

    it('holds the stems with their document counts, without automatic colour words', async () => {
      const { idx, assets } = await library();
      await assets.insert(asset({ tags: ['flowers', 'garden'] }));
      expect(await idx().vocabulary('flo')).toEqual([{ term: 'flower', docs: 2 }]);
      expect(await idx().vocabulary('run')).toEqual([
        { term: 'run', docs: 1 },
        { term: 'rune', docs: 1 },
      ]);
      expect(await idx().vocabulary('blu')).toEqual([{ term: 'blue', docs: 1 }]);
      expect(await idx().vocabulary('zz')).toEqual([]);
      expect(await idx().vocabulary('')).toEqual([]);
      expect(await idx().known(['flower', 'lake', 'mountain', 'sale', 'beach', 'zebra', 'cafe', 'tabl'])).toEqual(
        new Set(['flower', 'lake', 'mountain', 'sale', 'beach', 'cafe', 'tabl']),
      );
      expect(await idx().known([])).toEqual(new Set());
    });

    it('returns the text of matching assets, to find a word as written', async () => {
      const { idx } = await library();
      expect(await idx().sampleText(prefixPhrase('runs'))).toContain('running');
      expect(await idx().sampleText(prefixPhrase('tabl'))).toContain('table');
      expect(await idx().sampleText(phrase('zebra'))).toBeNull();
    });

    it('counts the scope under the snapshot bound; search alone applies the filters', async () => {
      const { assets, indexes } = await f.create();
      const wide = await assets.insert(asset({ tags: ['tree'], width: 2000, height: 1000, category: 'banner' }));
      const tall = await assets.insert(asset({ tags: ['tree'], width: 1000, height: 2000, category: 'banner' }));
      const svg = await assets.insert(asset({ tags: ['tree'], kind: 'svg' }));
      await assets.insert(asset({ tags: ['bush'] }));
      const idx = (fl: AssetFilters): LexicalIndex => indexes.assets(scope, fl);
      const tree = phrase('tree');
      const hits = async (fl: AssetFilters): Promise<[number[], number]> => {
        const r = await idx(fl).search(tree, 10);
        return [sorted(r.seqs), r.total];
      };
      expect(await hits({})).toEqual([[wide, tall, svg], 3]);
      expect(await hits({ category: 'banner' })).toEqual([[wide, tall], 2]);
      expect(await hits({ orientation: 'portrait' })).toEqual([[tall], 1]);
      expect(await hits({ kind: 'svg' })).toEqual([[svg], 1]);
      expect(await hits({ maxSeq: tall })).toEqual([[wide, tall], 2]);
      expect(await hits({ maxSeq: tall, excludeSeq: wide })).toEqual([[tall], 1]);
      expect(await hits({ subtype: 'nothing' })).toEqual([[], 0]);
      expect(await idx({ kind: 'svg' }).count(tree)).toBe(3);
      expect(await idx({ maxSeq: tall, kind: 'svg' }).count(tree)).toBe(2);
      expect(await idx({ kind: 'svg' }).size()).toBe(4);
      expect(await idx({ maxSeq: tall }).size()).toBe(2);
      expect(await idx({ maxSeq: tall }).sampleText(tree)).not.toBeNull();
      expect(await idx({ maxSeq: wide - 1 }).sampleText(tree)).toBeNull();
      const top = await idx({}).search(tree, 2);
      // equal text: newest first; the total counts every match
      expect(top).toMatchObject({ seqs: [svg, tall], total: 3 });
      expect((await idx({}).search(tree, 2, false)).seqs).toEqual([svg, tall]);
    });

    it('never counts, returns or samples an asset of another workspace or tenant', async () => {
      const { assets, indexes } = await f.create();
      const mine = await assets.insert(asset({ name: 'lighthouse.jpg' }));
      await assets.insert(asset({ name: 'lighthouse-secret.jpg' }, OTHER_WORKSPACE));
      await assets.insert(asset({ name: 'lighthouse-foreign.jpg' }, OTHER_TENANT));
      const idx = indexes.assets(scope, {});
      expect(await idx.count(phrase('lighthouse'))).toBe(1);
      expect(await idx.size()).toBe(1);
      expect(await idx.search(phrase('lighthouse'), 10)).toMatchObject({ seqs: [mine], total: 1 });
      const text = await idx.sampleText(phrase('lighthouse'));
      expect(text).not.toMatch(/secret|foreign/);
      expect(await indexes.assets(OTHER_WORKSPACE, {}).count(phrase('secret'))).toBe(1);
      expect(await indexes.assets({ tenantId: 'tenant-b', workspaceId: 'ws-a' }, {}).count(phrase('lighthouse'))).toBe(0);
    });

    it('the same word alone in a heavier field ranks first (name, tags, alt text, OCR text), whatever the age', async () => {
      const { assets, setEnrichedText, indexes } = await f.create();
      // every field two words long in every asset: only the field weight tells them apart
      const doc = async (field: 'name' | 'tags' | 'alt' | 'ocr', k: number): Promise<number> => {
        const w = (x: string): string => (x === field ? 'harbour' : `${x}${k}a`);
        const seq = await assets.insert(
          asset({ name: `${w('name')} n${k}b`, name_words: '', tags: [w('tags'), `t${k}b`], alt_text: `${w('alt')} a${k}b` }),
        );
        await setEnrichedText(seq, `${w('ocr')} o${k}b`, []);
        return seq;
      };
      const inName = await doc('name', 1);
      const inTags = await doc('tags', 2);
      const inAlt = await doc('alt', 3);
      const inOcr = await doc('ocr', 4);
      expect((await indexes.assets(scope, {}).search(phrase('harbour'), 10)).seqs).toEqual([inName, inTags, inAlt, inOcr]);
    });

    it('follows metadata updates, enrichment writes and deletes', async () => {
      const { assets, setEnrichedText, indexes } = await f.create();
      const idx = (): LexicalIndex => indexes.assets(scope, {});
      const a = asset({ tags: ['oak'] });
      const seq = await assets.insert(a);
      expect(await idx().known(['oak'])).toEqual(new Set(['oak']));
      await assets.updateMetadata(scope, seq, { ...a, name_words: '', tags: ['pine'], alt_text: 'snowy ridge' });
      expect(await idx().count(phrase('oak'))).toBe(0);
      expect(await idx().vocabulary('oa')).toEqual([]);
      expect(await idx().known(['oak', 'pine', 'ridg'])).toEqual(new Set(['pine', 'ridg']));
      expect((await idx().search(inColumn(phrase('ridge'), 'alt_text'), 10)).seqs).toEqual([seq]);
      await setEnrichedText(seq, 'WINTER SALE', ['forest', 'green']);
      expect((await idx().search(allOf([phrase('sale'), phrase('forest')]), 10)).seqs).toEqual([seq]);
      expect(await idx().count(phrase('green'))).toBe(0);
      expect(await idx().vocabulary('fores')).toEqual([{ term: 'forest', docs: 1 }]);
      await setEnrichedText(seq, null, []);
      expect(await idx().count(phrase('sale'))).toBe(0);
      expect(await idx().known(['forest', 'pine'])).toEqual(new Set(['pine']));
      await assets.deleteMany(scope, [seq]);
      expect(await idx().count(phrase('pine'))).toBe(0);
      expect(await idx().known(['pine', 'ridg'])).toEqual(new Set());
      expect(await idx().size()).toBe(0);
    });
  });
}
