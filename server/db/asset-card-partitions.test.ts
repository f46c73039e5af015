import { describe, expect, it } from 'vitest';
import { PartitionBudget } from '../vector-scan/partition-budget.ts';
import { createAssetCardPartitions } from './asset-card-partitions.ts';
import { createAssetQueries } from './assets.ts';
import { CONTRACT_SCOPE, contractAsset, OTHER_TENANT, OTHER_WORKSPACE } from './contract/fixture.ts';
import { seedContractScopes, sqliteFiles } from './contract/sqlite-files.ts';
import { createSearchChanges } from './search-changes.ts';

// The result cards held in memory (db/asset-card-partitions.ts) on real SQLite files: they answer what
// the rows say now, whichever connection wrote them (the asset store's contract covers inserts, edits
// and deletions through another connection); these cases cover what only the partitions can get wrong.
const files = sqliteFiles('cards');

function setUp(budget = new PartitionBudget()) {
  const file = files.next();
  const db = files.connect(file);
  seedContractScopes(db);
  const other = files.connect(file);
  return { db, other, q: createAssetQueries(db), cards: createAssetCardPartitions(db, createSearchChanges(db), budget) };
}

describe('asset card partitions', () => {
  it('show a thumbnail written after its asset, by another connection, and its removal', () => {
    const { cards, q, other } = setUp();
    const seq = q.insert(contractAsset({ alt_text: 'harbour at dusk' }));
    expect(cards.cards(CONTRACT_SCOPE, [seq])![0]!.thumbnail).toBeNull();
    // a rendition written on its own (no asset row change): the card must still follow it
    other
      .prepare(
        'INSERT INTO asset_renditions (asset_seq, role, width, height, format, sha256, blob_key, size_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(seq, 'thumbnail', 320, 320, 'webp', 'f'.repeat(64), 'thumbnail-public-key-w', 100);
    expect(cards.cards(CONTRACT_SCOPE, [seq])![0]!.thumbnail).toEqual({ key: 'thumbnail-public-key-w', format: 'webp' });
    other.prepare('DELETE FROM asset_renditions WHERE asset_seq = ?').run(seq);
    expect(cards.cards(CONTRACT_SCOPE, [seq])![0]!.thumbnail).toBeNull();
    expect(cards.cards(CONTRACT_SCOPE, [seq])).toEqual(q.cardsBySeqs(CONTRACT_SCOPE, [seq]));
  });

  it('answer like the rows for every workspace, in the order asked, foreign seqs dropped', () => {
    const { cards, q } = setUp();
    const seqs = [CONTRACT_SCOPE, OTHER_WORKSPACE, OTHER_TENANT].flatMap((s) =>
      [1, 2, 3].map((i) => q.insert(contractAsset({ alt_text: `asset ${i}`, tags: [`t${i}`] }, s))),
    );
    const asked = [...seqs].reverse();
    for (const scope of [CONTRACT_SCOPE, OTHER_WORKSPACE, OTHER_TENANT])
      expect(cards.cards(scope, asked)).toEqual(q.cardsBySeqs(scope, asked));
    expect(cards.loaded).toBe(3);
  });

  it('leave a transaction of their own connection to the rows (its writes are not logged yet)', () => {
    const { db, cards, q } = setUp();
    const seq = q.insert(contractAsset({ alt_text: 'before' }));
    expect(cards.cards(CONTRACT_SCOPE, [seq])![0]!.alt_text).toBe('before');
    db.transaction(() => {
      db.prepare("UPDATE assets SET alt_text = 'inside' WHERE seq = ?").run(seq);
      expect(cards.cards(CONTRACT_SCOPE, [seq])).toBeNull();
      expect(q.cardsBySeqs(CONTRACT_SCOPE, [seq])[0]!.alt_text).toBe('inside');
    })();
    expect(cards.cards(CONTRACT_SCOPE, [seq])![0]!.alt_text).toBe('inside');
  });

  it('take a head read earlier in the request, and one older than their mark, without going back', () => {
    const { cards, q, other } = setUp();
    const changes = createSearchChanges(other);
    const seq = q.insert(contractAsset({ alt_text: 'one' }));
    const early = changes.head();
    expect(cards.cards(CONTRACT_SCOPE, [seq], early)![0]!.alt_text).toBe('one');
    other.prepare("UPDATE assets SET alt_text = 'two' WHERE seq = ?").run(seq);
    // the request read its head before the edit: it answers as of that head
    expect(cards.cards(CONTRACT_SCOPE, [seq], early)![0]!.alt_text).toBe('one');
    const now = changes.head();
    expect(cards.cards(CONTRACT_SCOPE, [seq], now)![0]!.alt_text).toBe('two');
    // a slower request holding the old head does not take the cards back
    expect(cards.cards(CONTRACT_SCOPE, [seq], early)![0]!.alt_text).toBe('two');
  });

  it('count against the shared budget: beyond it the least recently used workspace is dropped, then reloads', () => {
    const budget = new PartitionBudget(1);
    const { cards, q } = setUp(budget);
    const a = q.insert(contractAsset({ alt_text: 'in a' }, CONTRACT_SCOPE));
    const b = q.insert(contractAsset({ alt_text: 'in b' }, OTHER_WORKSPACE));
    expect(cards.cards(CONTRACT_SCOPE, [a])![0]!.alt_text).toBe('in a');
    expect(budget.bytes).toBeGreaterThan(300);
    expect(cards.cards(OTHER_WORKSPACE, [b])![0]!.alt_text).toBe('in b');
    expect(cards.loaded).toBe(1);
    expect(cards.cards(CONTRACT_SCOPE, [a])![0]!.alt_text).toBe('in a');
    expect(budget.partitions).toBe(1);
  });
});
