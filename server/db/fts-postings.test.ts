import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Database } from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createTenant } from '../tenancy/admin.ts';
import { createAssetQueries } from './assets.ts';
import { openDb } from './connection.ts';
import { createFtsPostings, FTS_POSTINGS_LIMITS, type FtsPostingsLimits, type FtsPostingsTable } from './fts-postings.ts';
import { ASSET_FTS_COLUMNS, PRODUCT_FTS_COLUMNS } from './lexical-tables.ts';
import { createProductQueries } from './products.ts';
import { createSearchChanges } from './search-changes.ts';
import { syntheticAsset } from './synthetic-asset.ts';
import { syntheticProduct } from './synthetic-product.ts';
import { createSqliteTenancyStore } from './tenancy-store.ts';

/** A seeded PRNG (mulberry32) so every run draws the same corpus and expressions. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
// inflections that stem alike, diacritics, digits, a word FTS5 splits in two
const WORDS = [
  'cat',
  'cats',
  'dog',
  'running',
  'runs',
  'café',
  'cafe',
  'blue',
  'Blue',
  'sky',
  'x9',
  '2024',
  'naïve',
  'tree',
  'trees',
  'red',
];
const text = (r: () => number, max: number): string =>
  Array.from({ length: Math.floor(r() * (max + 1)) }, () => WORDS[Math.floor(r() * WORDS.length)]!).join(r() < 0.1 ? ', ' : ' ');

/**
 * A random expression of the planner's subset (phrases of one word and of several, prefix phrases, AND, OR,
 * a column filter), and a few outside what memory holds (a prefix phrase of several words).
 */
function expression(r: () => number, columns: readonly string[], depth = 0): string {
  const x = r();
  if (depth > 2 || x < 0.4) {
    const w = WORDS[Math.floor(r() * WORDS.length)]!;
    const y = r();
    // prefix phrases: of a whole word, and of its first letters (several terms)
    if (y < 0.03) return `"${w}"*`;
    if (y < 0.08) return `"${w.slice(0, 1 + Math.floor(r() * 3))}"*`;
    // phrases of several words: two (often present in the random texts), three, a word twice (overlapping instances)
    const w2 = WORDS[Math.floor(r() * WORDS.length)]!;
    if (y < 0.2) return `"${w} ${w2}"`;
    if (y < 0.24) return `"${w} ${w2} ${WORDS[Math.floor(r() * WORDS.length)]!}"`;
    if (y < 0.27) return `"${w} ${w}"`;
    if (y < 0.28) return `"${w} ${w2}"*`;
    return `"${w}"`;
  }
  if (x < 0.55 && depth === 0) return `{${columns[Math.floor(r() * columns.length)]!}} : (${expression(r, columns, 1)})`;
  const n = 2 + Math.floor(r() * 3);
  const items = Array.from({ length: n }, () => expression(r, columns, depth + 1));
  return `(${items.join(r() < 0.5 ? ' AND ' : ' OR ')})`;
}

const ASSETS: FtsPostingsTable = { fts: 'assets_fts', kind: 'asset', ...ASSET_FTS_COLUMNS };
const PRODUCTS: FtsPostingsTable = { fts: 'products_fts', kind: 'product', ...PRODUCT_FTS_COLUMNS };

/**
 * Every answer of the memory copy against FTS5's own for `exprs`: match counts under several rowid bounds,
 * membership, the ranked top (`bm25`, ties newest first) and each match's bm25 value.
 *
 * FTS5 (3.53) is not consistent with itself on some expressions that hold a phrase of several words under
 * an OR: there a row's bm25 can leave out the instances of another phrase of a matching branch, and which
 * rows it happens to depends on the direction FTS5 walks the rowids (the same expression's bm25 differs
 * between `ORDER BY rowid` and `ORDER BY rowid DESC`). For those (`unsettled`) only the matches are
 * compared; on every expression where both walks agree, the bm25 values and tops must be FTS5's exactly.
 * @returns how many expressions memory answered, how many of them held a phrase of several words, and
 * how many FTS5 did not settle (the rest memory must decline: prefix phrases of several words)
 */
function compare(
  db: Database,
  postings: ReturnType<typeof createFtsPostings>,
  t: FtsPostingsTable,
  exprs: string[],
): { held: number; phrases: number; unsettled: number } {
  const bm25 = `bm25(${t.fts}, ${t.weights.map((w) => w.toFixed(1)).join(', ')})`;
  const max = db.prepare(`SELECT coalesce(max(rowid), 0) FROM ${t.fts}`).pluck().get() as number;
  let held = 0,
    phrases = 0,
    unsettled = 0;
  for (const e of exprs) {
    const m = postings.matches(e);
    const quoted = [...e.matchAll(/"([^"]*)"(\*?)/g)];
    if (quoted.some((x) => x[1]!.includes(' ') && x[2] === '*')) {
      expect(m, e).toBeNull();
      continue;
    }
    expect(m, e).not.toBeNull();
    held++;
    if (quoted.some((x) => x[1]!.includes(' '))) phrases++;
    const walk = (dir: string): [number, number][] =>
      db.prepare(`SELECT rowid, ${bm25} AS r FROM ${t.fts} WHERE ${t.fts} MATCH ? ORDER BY rowid ${dir}`).raw().all(e) as [
        number,
        number,
      ][];
    const rows = walk('DESC');
    const settled = walk('ASC')
      .reverse()
      .every(([id, r], i) => rows[i]![0] === id && Math.abs(rows[i]![1] - r) <= 1e-12 * Math.abs(r));
    if (!settled) unsettled++;
    for (const hi of [max, Math.floor(max / 2), 3]) {
      const n = db.prepare(`SELECT count(*) FROM ${t.fts} WHERE ${t.fts} MATCH ? AND rowid <= ?`).pluck().get(e, hi) as number;
      expect(m!.count(hi), `${e} ≤ ${hi}`).toBe(n);
      if (settled)
        for (const [lim, k] of [
          [2000, 500],
          [7, 3],
        ] as const) {
          const want = db
            .prepare(
              `SELECT rowid FROM (SELECT rowid, ${bm25} AS r FROM ${t.fts} WHERE ${t.fts} MATCH ? AND rowid <= ? ORDER BY rowid DESC LIMIT ?) ORDER BY r, rowid DESC LIMIT ?`,
            )
            .pluck()
            .all(e, hi, lim, k) as number[];
          expect(m!.top(hi, lim, k), `${e} top ≤ ${hi}`).toEqual(want);
        }
    }
    const got = m!.newest(max, 100_000);
    expect(
      got.map((g) => g[0]),
      e,
    ).toEqual(rows.map((r) => r[0]));
    if (settled)
      got.forEach(([, s], i) => expect(Math.abs(s - rows[i]![1]), `${e} bm25 of ${rows[i]![0]}`).toBeLessThanOrEqual(1e-12 * Math.abs(s)));
    const members = new Set(rows.map((r) => r[0]));
    for (let q = 1; q <= max; q += 7) expect(m!.has(q), `${e} has ${q}`).toBe(members.has(q));
    // which of a set of rowids match: every third rowid (one walk), and three of them (a search each)
    const every3 = Array.from({ length: Math.ceil(max / 3) }, (_, i) => max - 3 * i);
    expect(m!.filter(every3), `${e} filter`).toEqual(every3.filter((q) => members.has(q)).sort((a, b) => a - b));
    expect(m!.filter(every3.slice(0, 3)), `${e} filter`).toEqual(
      every3
        .slice(0, 3)
        .filter((q) => members.has(q))
        .sort((a, b) => a - b),
    );
  }
  return { held, phrases, unsettled };
}

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
function file(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-postings-'));
  dirs.push(d);
  return path.join(d, 'db.sqlite');
}

async function assetLibrary(f: string, n: number, seed: number) {
  const db = openDb(f);
  const t = await createTenant(createSqliteTenancyStore(db), 't');
  const assets = createAssetQueries(db);
  const r = rng(seed);
  for (let i = 1; i <= n; i++) {
    const seq = assets.insert(
      syntheticAsset(i, t, {
        name: `${text(r, 2).replace(/\W+/g, '-') || 'x'}-${i}.png`,
        alt_text: r() < 0.9 ? text(r, 8) : null,
        tags: r() < 0.7 ? text(r, 3).split(/[ ,]+/).filter(Boolean) : [],
      }),
    );
    if (r() < 0.3) db.prepare('UPDATE assets SET ocr_text = ? WHERE seq = ?').run(text(r, 20), seq);
  }
  return { db, t, assets, r };
}

describe('FTS5 table in memory (fts-postings)', () => {
  it('answers counts, membership, ranked tops and bm25 exactly as FTS5 does (assets, 4 weighted columns)', async () => {
    const { db } = await assetLibrary(':memory:', 300, 1);
    const r = rng(2);
    const exprs = Array.from({ length: 150 }, () => expression(r, ASSETS.columns));
    const p = createFtsPostings(db, createSearchChanges(db), ASSETS);
    const { held, phrases, unsettled } = compare(db, p, ASSETS, exprs);
    expect(held).toBeGreaterThan(120);
    expect(phrases - unsettled).toBeGreaterThan(30);
  });

  it('answers as FTS5 does on the product table (7 columns, prefix indexes)', async () => {
    const db = openDb(':memory:');
    const t = await createTenant(createSqliteTenancyStore(db), 't');
    const r = rng(3);
    const products = Array.from({ length: 200 }, (_, i) =>
      syntheticProduct(i + 1, {
        title: text(r, 4) || 'untitled',
        description_html: `<p>${text(r, 30)}</p>`,
        vendor: text(r, 1),
        product_type: text(r, 2),
        tags: text(r, 3).split(/[ ,]+/).filter(Boolean),
      }),
    );
    createProductQueries(db).upsertMany({ tenantId: t.tenant_id, workspaceId: t.workspace_id, storeId: t.store_id }, products, 'json', {
      at: 'x',
      replaceCollections: false,
    });
    const exprs = Array.from({ length: 120 }, () => expression(r, PRODUCTS.columns));
    const { held, phrases, unsettled } = compare(db, createFtsPostings(db, createSearchChanges(db), PRODUCTS), PRODUCTS, exprs);
    expect(held).toBeGreaterThan(100);
    expect(phrases - unsettled).toBeGreaterThan(20);
  });

  it.each([
    ['replayed beside the copy', FTS_POSTINGS_LIMITS, 12],
    ['folded into the copy past the overlay limit', { overlay: 8, instances: FTS_POSTINGS_LIMITS.instances }, 3],
    ['read again when more rows changed at once', { overlay: 8, instances: FTS_POSTINGS_LIMITS.instances }, 12],
  ] as [string, FtsPostingsLimits, number][])(
    'follows inserts, updates and deletes of this and another connection (%s)',
    async (_how, limits, batch) => {
      const f = file();
      const { db, t, assets, r } = await assetLibrary(f, 200, 4);
      const p = createFtsPostings(db, createSearchChanges(db), ASSETS, limits);
      const exprs = Array.from({ length: 50 }, () => expression(r, ASSETS.columns));
      compare(db, p, ASSETS, exprs);
      const other = openDb(f);
      try {
        for (let round = 0; round < 3; round++) {
          for (let i = 0; i < 12; i++) {
            if (i > 0 && i % batch === 0) compare(db, p, ASSETS, exprs);
            const seq = 1 + Math.floor(r() * 200);
            const conn = i % 2 ? other : db;
            const x = r();
            if (x < 0.5) conn.prepare('UPDATE assets SET alt_text = ? WHERE seq = ?').run(text(r, 8), seq);
            else if (x < 0.7) conn.prepare('UPDATE assets SET ocr_text = ? WHERE seq = ?').run(r() < 0.5 ? null : text(r, 10), seq);
            else if (x < 0.85) conn.prepare('DELETE FROM assets WHERE seq = ?').run(seq);
            else assets.insert(syntheticAsset(1000 + round * 100 + i, t, { alt_text: text(r, 6), name: `new-${round}-${i}.png` }));
          }
          // a row with no token at all still counts as a row of the table (N and avgdl of bm25)
          db.prepare(
            "UPDATE assets SET name = '', alt_text = NULL, tags = '[]', ocr_text = NULL WHERE seq = (SELECT max(seq) FROM assets)",
          ).run();
          compare(db, p, ASSETS, exprs);
        }
      } finally {
        other.close();
      }
    },
  );

  it('declines inside an open transaction and past its instance limit', async () => {
    const { db } = await assetLibrary(':memory:', 50, 5);
    const p = createFtsPostings(db, createSearchChanges(db), ASSETS);
    expect(p.matches('"cat"')).not.toBeNull();
    db.transaction(() => expect(p.matches('"cat"')).toBeNull())();
    const small = createFtsPostings(db, createSearchChanges(db), ASSETS, { overlay: 8, instances: 10 });
    expect(small.matches('"cat"')).toBeNull();
  });

  it('leaves phrases of several words to FTS5 when a column is longer than it places (65,535 tokens), and still holds single words', async () => {
    const { db } = await assetLibrary(':memory:', 20, 8);
    // many words, none more than 65,535 times (the block's own limit per term and row)
    const filler = (n: number): string => Array.from({ length: n }, (_, i) => `w${i % 1000}`).join(' ');
    db.prepare('UPDATE assets SET ocr_text = ? WHERE seq = 3').run(`${filler(70_000)} dog tree`);
    const p = createFtsPostings(db, createSearchChanges(db), ASSETS);
    expect(p.matches('"dog tree"')).toBeNull();
    expect(p.matches('"dog"')!.has(3)).toBe(true);
    // below the limit the same row's phrase is placed from memory, at its position past 60,000
    db.prepare('UPDATE assets SET ocr_text = ? WHERE seq = 3').run(`${filler(60_000)} dog tree`);
    const q = createFtsPostings(db, createSearchChanges(db), ASSETS);
    expect(q.matches('"dog tree"')!.has(3)).toBe(true);
    expect(q.matches('"tree dog"')!.has(3)).toBe(false);
  });

  it('leaves a table it cannot read to FTS5 instead of failing the search', async () => {
    const { db } = await assetLibrary(':memory:', 10, 7);
    // columnsize=0: no %_docsize table, so no row lengths to read
    db.exec("CREATE VIRTUAL TABLE plain USING fts5(body, columnsize=0); INSERT INTO plain(rowid, body) VALUES (1, 'cat')");
    const p = createFtsPostings(db, createSearchChanges(db), { fts: 'plain', kind: 'asset', columns: ['body'], weights: [1] });
    expect(p.matches('"cat"')).toBeNull();
    expect(p.view()).toBeNull();
  });

  it('keeps a view on the state it was taken from after a write', async () => {
    const { db } = await assetLibrary(':memory:', 50, 6);
    const p = createFtsPostings(db, createSearchChanges(db), ASSETS);
    const view = p.view()!;
    expect(view.matches('"zebra"')!.count(1e9)).toBe(0);
    db.prepare("UPDATE assets SET alt_text = 'zebra' WHERE seq = 1").run();
    // one request's calls see one state: the view still answers as of when it was taken …
    expect(view.matches('"zebra"')!.count(1e9)).toBe(0);
    // … until the copy moves on (a later request), after which it answers from the copy brought up to date
    expect(p.matches('"zebra"')!.count(1e9)).toBe(1);
    expect(view.matches('"zebra"')!.count(1e9)).toBe(1);
  });

  it('takes the head a request read: answers as of it, and never goes back for an older one', async () => {
    const { db } = await assetLibrary(':memory:', 50, 6);
    const changes = createSearchChanges(db);
    const p = createFtsPostings(db, changes, ASSETS);
    const before = changes.head();
    expect(p.view(before)!.matches('"zebra"')!.count(1e9)).toBe(0);
    db.prepare("UPDATE assets SET alt_text = 'zebra' WHERE seq = 1").run();
    // a request that read its head before the write answers without it (no log read of its own)
    expect(p.view(before)!.matches('"zebra"')!.count(1e9)).toBe(0);
    const after = changes.head();
    expect(p.view(after)!.matches('"zebra"')!.count(1e9)).toBe(1);
    // a slower request holding the older head gets the copy as it is now, not a copy taken back
    expect(p.view(before)!.matches('"zebra"')!.count(1e9)).toBe(1);
  });
});
