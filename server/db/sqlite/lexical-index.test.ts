import { describe, expect, it } from 'vitest';
import { createTenant } from '../../tenancy/admin.ts';
import { createSqliteAssetStore } from './assets.ts';
import { inSqliteTransaction } from './batch-transaction.ts';
import { syntheticAsset } from '../synthetic-asset.ts';
import { openDb } from './connection.ts';
import { COUNT_CAP, createLexicalIndexes, MEMBERS_CAP } from './lexical-index.ts';
import { allOf, anyOf, phrase, type LexicalExpr } from '../../domain/search/lexical-query.ts';
import { createSqliteTenancyStore } from './tenancy.ts';

/**
 * A library of N assets that all say "harbour" (twice in every tenth), every 100th also "lighthouse";
 * `others` assets of a second workspace say "harbour" too (interleaved with the first workspace's rows).
 */
async function library(N: number, others: number) {
  const db = openDb(':memory:');
  const tenancy = createSqliteTenancyStore(db);
  const t = await createTenant(tenancy, 't');
  const u = await createTenant(tenancy, 'u');
  const assets = createSqliteAssetStore(db);
  await inSqliteTransaction(db, async () => {
    for (let i = 0; i < N; i++) {
      const alt = `harbour view${i % 10 === 0 ? ' harbour' : ''}${i % 100 === 0 ? ' lighthouse' : ''}`;
      await assets.insert(syntheticAsset(i, t, { name_words: 'a', alt_text: alt, category: i % 2 ? 'background' : null, created_at: 'x' }));
      if (i < others) await assets.insert(syntheticAsset(N + i, u, { name_words: 'a', alt_text: 'harbour', created_at: 'x' }));
    }
  });
  return { db, scope: { tenantId: t.tenant_id, workspaceId: t.workspace_id } };
}

/** Bounded cost on frequent words: counting stops at COUNT_CAP, past it the total is an estimate and says so. */
const harbour = phrase('harbour');
const lighthouse = phrase('lighthouse');
const zebra = phrase('zebra');
/** A case's label in a failure message. */
const label = (e: LexicalExpr): string => JSON.stringify(e);

describe('lexical index on frequent words', () => {
  const N = Math.round(COUNT_CAP * 1.5);

  it('counts exactly below the cap', async () => {
    const { db, scope } = await library(N, 300);
    const idx = createLexicalIndexes(db).assets(scope, {});
    expect(await idx.count(lighthouse)).toBe(N / 100);
    const r = await idx.search(lighthouse, 10);
    expect(r).toMatchObject({ total: N / 100, estimated: false });
  });

  it('estimates past the cap when other workspaces share the index, says so, and ranks by BM25 within the newest COUNT_CAP matches', async () => {
    const { db, scope } = await library(N, 300);
    const idx = createLexicalIndexes(db).assets(scope, {});
    const n = await idx.count(harbour);
    expect(n).not.toBe(N);
    expect(Math.abs(n - N) / N).toBeLessThan(0.05);
    const r = await idx.search(harbour, 50);
    expect(r.estimated).toBe(true);
    expect(r.seqs).toHaveLength(50);
    // BM25 prefers the documents saying "harbour" twice: every tenth asset of the workspace, among its newest COUNT_CAP
    const seqOf = new Map(
      (
        db.prepare('SELECT seq, alt_text FROM assets WHERE workspace_id = ? ORDER BY seq DESC').all(scope.workspaceId) as {
          seq: number;
          alt_text: string;
        }[]
      )
        .slice(0, COUNT_CAP)
        .map((row) => [row.seq, row.alt_text]),
    );
    expect(r.seqs.every((s) => seqOf.get(s)?.startsWith('harbour view harbour'))).toBe(true);
    const filtered = await createLexicalIndexes(db).assets(scope, { category: 'background' }).search(harbour, 10);
    expect(filtered.estimated).toBe(false); // half of the rows: below the cap, counted exactly
    expect(filtered.total).toBe(N / 2);
  });

  it('counts exactly from the FTS5 index alone when the workspace holds every row, and still ranks within the newest COUNT_CAP', async () => {
    const { db, scope } = await library(N, 0);
    const idx = createLexicalIndexes(db).assets(scope, {});
    expect(await idx.count(harbour)).toBe(N);
    const r = await idx.search(harbour, 50);
    expect(r).toMatchObject({ total: N, estimated: false });
    expect(r.seqs.every((s) => (s - 1) % 10 === 0 && s > N - COUNT_CAP)).toBe(true);
    // under a snapshot bound the count stops at the bound
    expect(await createLexicalIndexes(db).assets(scope, { maxSeq: 100 }).count(harbour)).toBe(100);
  });

  it('ranks in SQLite without filters exactly as the filtered pass ranks here (BM25, then newest first on ties)', async () => {
    const { db, scope } = await library(N, 0);
    const lex = createLexicalIndexes(db);
    // every asset is an image: the kind filter drops nothing but takes the path that sorts the window in JS
    for (const [match, k] of [
      [harbour, 50],
      [harbour, COUNT_CAP + 10],
      [anyOf([lighthouse, phrase('view')]), 500],
      [lighthouse, 7],
    ] as const) {
      for (const maxSeq of [undefined, 1000]) {
        const plain = await lex.assets(scope, { maxSeq }).search(match, k);
        const filtered = await lex.assets(scope, { maxSeq, kind: 'image' }).search(match, k);
        expect(plain.seqs).toEqual(filtered.seqs);
        expect(plain.total).toBe(filtered.total);
      }
    }
  });
});

/** Counting a rare expression keeps its documents for `within` and `countAny`; a frequent one is asked again. */
describe('lexical index member lists', () => {
  it.each([
    ['the workspace holds every row', 0],
    ['another workspace shares the table', 300],
  ])('answers within and countAny as a fresh index does, below and past MEMBERS_CAP (%s)', async (_label, others) => {
    const N = MEMBERS_CAP * 3;
    const { db, scope } = await library(N, others);
    const indexes = createLexicalIndexes(db);
    const seqs = (
      db.prepare('SELECT seq FROM assets WHERE workspace_id = ? ORDER BY seq').pluck().all(scope.workspaceId) as number[]
    ).filter((_, i) => i % 7 === 0);
    const exprs = [lighthouse, allOf([harbour, lighthouse]), anyOf([lighthouse, zebra]), harbour, zebra];
    const counted = indexes.assets(scope, {});
    for (const e of exprs) await counted.count(e);
    for (const e of exprs) {
      const fresh = await indexes.assets(scope, {}).within(e, seqs);
      expect([label(e), [...(await counted.within(e, seqs))].sort()]).toEqual([label(e), [...fresh].sort()]);
    }
    // both rare, then one frequent: the union is counted as one expression would be
    const union = async (ms: LexicalExpr[]) => [await counted.countAny(ms, anyOf(ms)), await indexes.assets(scope, {}).count(anyOf(ms))];
    const [kept, asked] = await union([lighthouse, zebra]);
    expect(kept).toBe(Math.ceil(N / 100));
    expect(kept).toBe(asked);
    const [mixed, direct] = await union([lighthouse, harbour]);
    expect(mixed).toBe(direct);
    expect(mixed).toBe(N);
  });
});
