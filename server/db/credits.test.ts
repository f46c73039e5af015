import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createCreditQueries } from './credits.ts';
import { migrate } from './migrate.ts';

describe('credit holds', () => {
  const db = new Database(':memory:');
  db.pragma('foreign_keys = OFF');
  migrate(db);
  const q = createCreditQueries(db);
  const scope = { tenantId: 't', workspaceId: 'w' };

  it('reserves within the budget, refuses beyond it, and counts holds until released or charged', () => {
    const a = q.reserve(scope, 2, 3, 60_000);
    expect(a.ok).toBe(true);
    expect(q.reserve(scope, 2, 3, 60_000)).toEqual({ ok: false, used: 0, held: 2 });
    expect(q.held(scope)).toBe(2);
    q.transaction(() => {
      q.charge(scope, { assetId: 'x', provider: 'p', model: 'm', credits: 2 });
      if (a.ok) q.release(a.holdId);
    });
    expect(q.held(scope)).toBe(0);
    expect(q.used(scope)).toBe(2);
    expect(q.reserve(scope, 1, 3, 60_000).ok).toBe(true);
    expect(q.reserve(scope, 1, 3, 60_000).ok).toBe(false);
    expect(q.reserve(scope, 5, null, 60_000).ok).toBe(true); // no budget: unlimited
  });

  it('a hold whose process died stops counting when it expires', () => {
    const other = { tenantId: 't', workspaceId: 'w2' };
    expect(q.reserve(other, 1, 1, -1).ok).toBe(true); // already expired
    expect(q.held(other)).toBe(0);
    expect(q.reserve(other, 1, 1, 60_000).ok).toBe(true);
    expect(db.prepare('SELECT count(*) AS n FROM credit_holds WHERE workspace_id = ?').get('w2')).toEqual({ n: 1 });
  });
});
