import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Thesaurus } from '../../domain/search/concepts.ts';
import { LEXICAL_MATCH, runLexical, type LexicalOptions, type LexicalResult } from '../../domain/search/lexical.ts';
import type { SynonymRule } from '../../domain/search/lexical-words.ts';
import { loadWordnet } from '../../providers/wordnet.ts';
import { createSqliteAssetStore } from '../sqlite/assets.ts';
import { contractAsset, CONTRACT_SCOPE } from '../contract/fixture.ts';
import { schemasPerCase, seedPgContractScopes } from '../contract/pg-schemas.ts';
import { seedContractScopes, sqliteFiles } from '../contract/sqlite-files.ts';
import { createLexicalIndexes } from '../sqlite/lexical-index.ts';
import type { AssetStore, NewAsset } from '../ports/asset-store.ts';
import { createPgAssetStore } from './assets.ts';
import { createPgLexicalIndexes } from './lexical-index.ts';

// The lexical planner (domain/search/lexical.ts) unchanged on both backends: the same corpus in a SQLite file
// and a PostgreSQL schema, the same queries through `runLexical`, the same answers. Counts, sizes and
// vocabularies agree, so relevance, provenance, corrections and expansions agree exactly; only the
// order among equal relevance may differ (BM25 vs ts_rank_cd), so hits are compared as sets.
// The thesaurus is the real WordNet (built once into a temp directory, ~1 s).

/** [asset, OCR text, automatic tags] */
const CORPUS: [Partial<NewAsset>, string | null, string[]][] = [
  [{ name: 'lighthouse-at-dusk.jpg', tags: ['lighthouse', 'coast'], alt_text: 'A white lighthouse on a rocky coast at dusk' }, null, []],
  [{ name: 'harbour_boats.jpg', tags: ['boat', 'harbour'], alt_text: 'Fishing boats moored in a small harbour' }, null, ['blue']],
  [{ name: 'red-sailboat.png', tags: ['sailboat'], alt_text: 'A red sailboat on calm water' }, null, []],
  [{ name: 'sunset.jpg', tags: ['sunset', 'sea'], alt_text: 'Orange sunset over the sea' }, null, ['orange']],
  [{ name: 'puppy.jpg', tags: ['dog', 'puppy'], alt_text: 'A golden retriever puppy on grass' }, null, []],
  [{ name: 'cat-sofa.jpg', tags: ['cat', 'sofa'], alt_text: 'A tabby cat sleeping on a sofa' }, null, []],
  [{ name: 'couch-living-room.jpg', tags: ['couch', 'interior'], alt_text: 'A grey couch in a bright living room' }, null, []],
  [{ name: 'IMG_0001.jpg', name_words: 'mountain lake', alt_text: 'Snowy mountains reflected in a lake' }, null, ['mountain']],
  [{ name: 'IMG_2041.jpg', name_words: '' }, 'GRAND OPENING SALE 50% OFF', []],
  [{ name: 'storefront.jpg', tags: ['shop'], alt_text: 'A bakery storefront with bread in the window' }, 'FRESH BREAD DAILY', []],
  [{ name: 'turquoise-necklace.jpg', tags: ['jewelry', 'turquoise'], alt_text: 'A turquoise stone necklace' }, null, []],
  [{ name: 'ship-at-sea.jpg', tags: ['ship'], alt_text: 'A cargo ship sailing across the ocean' }, null, []],
  [{ name: 'kayak.jpg', tags: ['kayak', 'river'], alt_text: 'Two people paddling a kayak on a river' }, null, []],
  [{ name: 'flowers.jpg', tags: ['flower', 'garden'], alt_text: 'Red tulips in a spring garden' }, null, ['red']],
  [{ name: 'rose.jpg', tags: ['rose'], alt_text: 'A single red rose' }, null, []],
  [{ name: 'city-night.jpg', tags: ['city', 'night'], alt_text: 'City skyline at night with lights' }, null, []],
  [{ name: 'café.jpg', alt_text: 'Café au lait on a wooden table' }, null, []],
  [{ name: 'running-shoes.jpg', tags: ['shoes', 'running'], alt_text: 'Running shoes on a track' }, null, []],
  [{ name: 'forest-path.jpg', tags: ['forest', 'path'], alt_text: 'A path through a pine forest' }, null, ['green', 'trees']],
  [{ name: 'beach-umbrella.jpg', tags: ['beach'], alt_text: 'Blue umbrellas on a sandy beach' }, null, ['blue']],
];
const SYNONYMS: SynonymRule[] = [{ kind: 'two_way', input: null, words: ['sofa', 'couch', 'settee'] }];

const files = sqliteFiles('parity');
const schemas = schemasPerCase();
const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-wordnet-'));
let thesaurus: Thesaurus;
beforeAll(async () => {
  thesaurus = await loadWordnet(cacheDir);
});
afterAll(() => fs.rmSync(cacheDir, { recursive: true, force: true }));

/** Insert the corpus in order; @returns corpus index by seq */
async function load(
  store: AssetStore,
  enrich: (seq: number, ocr: string | null, auto: string[]) => Promise<void>,
): Promise<Map<number, number>> {
  const bySeq = new Map<number, number>();
  for (const [i, [a, ocr, auto]] of CORPUS.entries()) {
    const seq = await store.insert(contractAsset(a));
    if (ocr !== null || auto.length > 0) await enrich(seq, ocr, auto);
    bySeq.set(seq, i);
  }
  return bySeq;
}

/** A result in backend-neutral terms: hits by corpus index (sorted), with relevance and provenance. */
function neutral(r: LexicalResult, bySeq: Map<number, number>) {
  const hits = r.hits
    .toArray()
    .map((h) => ({
      doc: bySeq.get(h.seq)!,
      relevance: Math.round(h.relevance * 1e9) / 1e9,
      by: [...h.matchedBy].sort(),
      complete: h.complete,
    }))
    .sort((a, b) => a.doc - b.doc);
  return {
    matches: hits.filter((h) => h.relevance >= LEXICAL_MATCH).map((h) => CORPUS[h.doc]![0].name),
    hits,
    exactTotal: r.exactTotal,
    corrections: r.corrections,
    expanded: r.expanded,
    terms: r.terms,
  };
}

describe('runLexical on SQLite and PostgreSQL', () => {
  it('gives the same matches, relevance, corrections and expansions for typical queries', async () => {
    const db = files.connect(files.next());
    seedContractScopes(db);
    const sqliteSeqs = await load(createSqliteAssetStore(db), async (seq, ocr, auto) => {
      db.prepare('UPDATE assets SET ocr_text = ?, auto_tags = ? WHERE seq = ?').run(ocr, JSON.stringify(auto), seq);
    });
    const pool = (await schemas.create()).pool();
    await seedPgContractScopes(pool);
    const pgSeqs = await load(createPgAssetStore(pool), async (seq, ocr, auto) => {
      await pool.query('UPDATE assets SET ocr_text = $1, auto_tags = $2 WHERE seq = $3', [ocr, JSON.stringify(auto), seq]);
    });
    const sqlite = createLexicalIndexes(db);
    const pg = createPgLexicalIndexes(pool);

    const all: LexicalOptions = { column: null, thesaurus, typos: true, synonyms: SYNONYMS, depth: 500 };
    const field = (column: string): LexicalOptions => ({ column, thesaurus: null, typos: true, synonyms: [], depth: 500 });
    const queries: [string, LexicalOptions, (r: ReturnType<typeof neutral>) => void][] = [
      ['lighthouse', all, (r) => expect(r.matches).toEqual(['lighthouse-at-dusk.jpg'])],
      ['boats', all, (r) => expect(r.matches).toContain('harbour_boats.jpg')],
      ['lighthose', all, (r) => expect(r.corrections).toEqual([{ from: 'lighthose', to: 'lighthouse' }])],
      ['turquiose necklace', all, (r) => expect(r.matches).toEqual(['turquoise-necklace.jpg'])],
      ['lightho', all, (r) => expect(r.matches).toEqual(['lighthouse-at-dusk.jpg'])],
      ['settee', all, (r) => expect(r.matches).toEqual(['cat-sofa.jpg', 'couch-living-room.jpg'])],
      ['vessel', all, (r) => expect(r.expanded.length).toBeGreaterThan(0)],
      ['red boat', all, (r) => expect(r.matches.length).toBeGreaterThan(0)],
      ['sunset sea', all, (r) => expect(r.matches).toContain('sunset.jpg')],
      ['cafe', all, (r) => expect(r.matches).toEqual(['café.jpg'])],
      ['bread sale', all, (r) => expect(r.matches.length).toBeGreaterThan(0)],
      ['dogs', all, (r) => expect(r.matches).toContain('puppy.jpg')],
      ['green', all, (r) => expect(r.matches).toEqual([])],
      ['zebra', all, (r) => expect(r.matches).toEqual([])],
      ['boat', field('tags'), (r) => expect(r.matches).toEqual(['harbour_boats.jpg'])],
      ['harbour', field('name'), (r) => expect(r.matches).toEqual(['harbour_boats.jpg'])],
      ['tulips', field('alt_text'), (r) => expect(r.matches).toEqual(['flowers.jpg'])],
      ['sale', field('ocr_text'), (r) => expect(r.matches).toEqual(['IMG_2041.jpg'])],
      ['lighthose', field('tags'), (r) => expect(r.corrections).toEqual([{ from: 'lighthose', to: 'lighthouse' }])],
      ['mountain', field('tags'), (r) => expect(r.matches).toEqual(['IMG_0001.jpg'])],
    ];
    for (const [query, o, check] of queries) {
      const onSqlite = neutral(await runLexical(query, sqlite.assets(CONTRACT_SCOPE, {}), o), sqliteSeqs);
      const onPg = neutral(await runLexical(query, pg.assets(CONTRACT_SCOPE, {}), o), pgSeqs);
      check(onSqlite);
      expect({ query, column: o.column, ...onPg }).toEqual({ query, column: o.column, ...onSqlite });
    }
  });
});
