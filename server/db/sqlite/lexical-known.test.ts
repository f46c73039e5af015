import { describe, expect, it } from 'vitest';
import { createTenant } from '../../tenancy/admin.ts';
import { createSqliteAssetStore } from './assets.ts';
import { openDb } from './connection.ts';
import { createLexicalIndexes } from './lexical-index.ts';
import { syntheticAsset } from '../synthetic-asset.ts';
import { createSqliteTenancyStore } from './tenancy.ts';

describe('LexicalIndex.known (the vocabulary check of concept expansion)', () => {
  it('answers from the vocabulary as of the request: a stem indexed by a later write is known on the next request', async () => {
    const db = openDb(':memory:');
    const t = await createTenant(createSqliteTenancyStore(db), 't');
    const scope = { tenantId: t.tenant_id, workspaceId: t.workspace_id };
    const assets = createSqliteAssetStore(db);
    const lex = createLexicalIndexes(db);
    await assets.insert(syntheticAsset(1, t, { name: 'zebra.png', name_words: 'zebra', alt_text: 'a zebra on grass' }));
    const head1 = await assets.changeHead();
    expect(await lex.assets(scope, {}, head1).known(['zebra', 'okapi', 'grass'])).toEqual(new Set(['zebra', 'grass']));
    // asked again at the same state: the same answer (now from the memo)
    expect(await lex.assets(scope, {}, head1).known(['okapi', 'zebra'])).toEqual(new Set(['zebra']));
    await assets.insert(syntheticAsset(2, t, { name: 'okapi.png', name_words: 'okapi', alt_text: 'an okapi' }));
    const head2 = await assets.changeHead();
    expect(head2).toBeGreaterThan(head1);
    expect(await lex.assets(scope, {}, head2).known(['okapi', 'zebra'])).toEqual(new Set(['okapi', 'zebra']));
    // without a head the database change counter keys the answer: a delete is seen too
    await assets.deleteMany(scope, [await assets.maxSeq(scope)]);
    expect(await lex.assets(scope, {}).known(['okapi', 'zebra'])).toEqual(new Set(['zebra']));
    db.close();
  });
});
