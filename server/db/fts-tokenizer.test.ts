import { describe, expect, it } from 'vitest';
import { createTenant } from '../tenancy/admin.ts';
import { createAssetQueries } from './assets.ts';
import { openDb } from './connection.ts';
import { createFtsTokenizer } from './fts-tokenizer.ts';
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
    const indexed = db.prepare('SELECT term, doc, col FROM temp.v WHERE doc = ?').raw();
    const cols = ['name', 'alt_text', 'tags', 'ocr_text'];
    expect(got.map(([term, doc, col]) => [term, doc, cols[col]])).toEqual(indexed.all(seq));
    // the readers of db (scope-size caches) key on total_changes(): tokenizing must not move it
    expect(changes()).toBe(before);
  });
});
