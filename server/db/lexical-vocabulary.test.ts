import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stemmer } from 'stemmer';
import { describe, expect, it } from 'vitest';
import { createTenant } from '../tenancy/admin.ts';
import { createAssetQueries } from './assets.ts';
import { openDb } from './connection.ts';
import { createLexicalIndexes } from './lexical-index.ts';
import { createFtsVocabulary } from './lexical-vocabulary.ts';
import { createProductQueries, type StoreScope } from './products.ts';
import { createSearchChanges } from './search-changes.ts';
import { syntheticAsset } from './synthetic-asset.ts';
import { syntheticProduct } from './synthetic-product.ts';
import { createSqliteTenancyStore } from './tenancy-store.ts';

const WORDS = ['harbour', 'lighthouse', 'zebra', 'meadow', 'falcons', 'café', 'running', 'oak', 'quartz', 'velvet', 'Ginkgo', 'umbrella'];
const STEMS = WORDS.map((w) => stemmer(w.toLowerCase()));

async function library(file = ':memory:') {
  const db = openDb(file);
  const tenancy = createSqliteTenancyStore(db);
  const t = await createTenant(tenancy, 't');
  const scope = { tenantId: t.tenant_id, workspaceId: t.workspace_id };
  const store: StoreScope = { ...scope, storeId: t.store_id };
  return { db, t, scope, store, assets: createAssetQueries(db), products: createProductQueries(db) };
}

/** What the index holds, read from its fts5vocab table: the reference every answer is checked against. */
const truth = (db: ReturnType<typeof openDb>, vocab: string, stems: string[]): Set<string> => {
  const all = new Set(db.prepare(`SELECT term FROM ${vocab}`).pluck().all() as string[]);
  return new Set(stems.filter((s) => all.has(s)));
};

/** A new word must be known to the very next query: the in-memory vocabulary follows every write. */
describe('known stems follow the index', () => {
  it('knows an imported word at once and forgets a word no document holds any more (assets)', async () => {
    const { db, t, scope, assets } = await library();
    for (let i = 0; i < 5; i++) assets.insert(syntheticAsset(i, t, { alt_text: 'harbour view' }));
    const lex = createLexicalIndexes(db);
    expect(await lex.assets(scope, {}).known(['harbour', 'zebra', 'meadow'])).toEqual(new Set(['harbour']));
    assets.insert(syntheticAsset(10, t, { alt_text: 'a zebra on the quay' }));
    expect(await lex.assets(scope, {}).known(['harbour', 'zebra', 'meadow'])).toEqual(new Set(['harbour', 'zebra']));
    // the only zebra document now says meadow; an old harbour document is gone
    db.prepare("UPDATE assets SET alt_text = 'meadow' WHERE seq = (SELECT max(seq) FROM assets)").run();
    db.prepare('DELETE FROM assets WHERE seq = (SELECT min(seq) FROM assets)').run();
    expect(await lex.assets(scope, {}).known(['harbour', 'zebra', 'meadow'])).toEqual(new Set(['harbour', 'meadow']));
    // every harbour document rewritten: harbour (4 documents at the first read) is gone too
    db.prepare("UPDATE assets SET alt_text = 'oak' WHERE alt_text = 'harbour view'").run();
    expect(await lex.assets(scope, {}).known(['harbour', 'zebra', 'meadow', 'oak'])).toEqual(new Set(['meadow', 'oak']));
  });

  it('knows a word of a product written through the catalog upsert, as the other index of the same port', async () => {
    const { db, store, products } = await library();
    products.upsertMany(store, [syntheticProduct(1, { title: 'Linen shirt' })], 'json', { at: 'x', replaceCollections: false });
    const lex = createLexicalIndexes(db);
    expect(await lex.products(store, { statuses: ['ACTIVE'] }).known(['linen', 'velvet'])).toEqual(new Set(['linen']));
    products.upsertMany(store, [syntheticProduct(1, { title: 'Velvet shirt' })], 'json', { at: 'y', replaceCollections: false });
    expect(await lex.products(store, { statuses: ['ACTIVE'] }).known(['linen', 'velvet'])).toEqual(new Set(['velvet']));
  });

  it('takes the head a request read: answers as of it, and never goes back for an older one', async () => {
    const { db, t, assets } = await library();
    assets.insert(syntheticAsset(1, t, { alt_text: 'harbour view' }));
    const changes = createSearchChanges(db);
    const vocabulary = createFtsVocabulary(db, changes, { fts: 'assets_fts', vocab: 'assets_fts_vocab', kind: 'asset' });
    const before = changes.head();
    expect(vocabulary.known(['harbour', 'zebra'], before)).toEqual(new Set(['harbour']));
    assets.insert(syntheticAsset(2, t, { alt_text: 'a zebra' }));
    // a request that read its head before the write answers without it (no log read of its own)
    expect(vocabulary.known(['harbour', 'zebra'], before)).toEqual(new Set(['harbour']));
    expect(vocabulary.known(['harbour', 'zebra'], changes.head())).toEqual(new Set(['harbour', 'zebra']));
    // a slower request holding the older head gets the state as it is now, not one taken back
    expect(vocabulary.known(['harbour', 'zebra'], before)).toEqual(new Set(['harbour', 'zebra']));
  });

  it('follows writes of another connection', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-vocab-'));
    try {
      const file = path.join(dir, 'db.sqlite');
      const { db, t, scope, assets } = await library(file);
      assets.insert(syntheticAsset(1, t, { alt_text: 'harbour' }));
      const lex = createLexicalIndexes(db);
      expect(await lex.assets(scope, {}).known(['harbour', 'quartz'])).toEqual(new Set(['harbour']));
      const other = openDb(file);
      createAssetQueries(other).insert(syntheticAsset(2, t, { alt_text: 'quartz' }));
      other.prepare('DELETE FROM assets WHERE seq = 1').run();
      other.close();
      expect(await lex.assets(scope, {}).known(['harbour', 'quartz'])).toEqual(new Set(['quartz']));
      db.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('agrees with the fts5vocab table after every write of a random sequence, across replays, re-reads and transactions', async () => {
    const { db, t, assets } = await library();
    // small limits: the sequence crosses re-reads of the vocabulary and uncertain terms looked up in the index
    const vocab = createFtsVocabulary(
      db,
      createSearchChanges(db),
      { fts: 'assets_fts', vocab: 'assets_fts_vocab', kind: 'asset' },
      { rows: 12, old: 3 },
    );
    let seed = 7;
    const rand = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const text = (): string => Array.from({ length: 1 + rand(3) }, () => WORDS[rand(WORDS.length)]).join(' ');
    let next = 0;
    for (let step = 0; step < 300; step++) {
      const seqs = db.prepare('SELECT seq FROM assets').pluck().all() as number[];
      const op = rand(10);
      const write = (): void => {
        if (op < 4 || seqs.length === 0)
          assets.insert(syntheticAsset(next++, t, { alt_text: text(), tags: rand(2) ? [WORDS[rand(12)]!] : [] }));
        else if (op < 7) db.prepare('UPDATE assets SET alt_text = ? WHERE seq = ?').run(text(), seqs[rand(seqs.length)]);
        else if (op < 8) db.prepare("UPDATE assets SET enrichment_status = 'done' WHERE seq = ?").run(seqs[rand(seqs.length)]);
        else db.prepare('DELETE FROM assets WHERE seq = ?').run(seqs[rand(seqs.length)]);
      };
      if (step % 25 === 0)
        // asked inside the writing transaction: the uncommitted rows count, and nothing sticks after the rollback
        try {
          db.transaction(() => {
            write();
            expect(vocab.known(STEMS)).toEqual(truth(db, 'assets_fts_vocab', STEMS));
            throw new Error('rollback');
          })();
        } catch (e) {
          if ((e as Error).message !== 'rollback') throw e;
        }
      else write();
      expect(vocab.known(STEMS), `step ${step}`).toEqual(truth(db, 'assets_fts_vocab', STEMS));
    }
  });
});
