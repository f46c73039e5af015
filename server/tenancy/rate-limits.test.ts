import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { Principal } from '../domain/scope.ts';
import { createLogger } from '../log.ts';
import { createRateLimits, preparedOnce } from './rate-limits.ts';

const principal: Principal = { tenantId: 't1', apiKeyId: 'k1' };

function database(): Database.Database {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE rate_limits (key TEXT PRIMARY KEY, points INTEGER NOT NULL DEFAULT 0, expire INTEGER)');
  return db;
}

describe('rate limits on SQLite', () => {
  it('prepares each SQL text once', () => {
    const db = database();
    const client = preparedOnce(db);
    const a = client.prepare('SELECT count(*) AS n FROM rate_limits');
    expect(client.prepare('SELECT count(*) AS n FROM rate_limits')).toBe(a);
    expect(client.transaction(() => (a.get() as { n: number }).n)()).toBe(0);
  });
  it('counts every call in the table and refuses the one over the key limit', async () => {
    const db = database();
    const settings = { cheapPerKey: 3, cheapPerTenant: 100, costlyPerKey: 1, costlyPerTenant: 100, requestsPerKey: 100 };
    const limits = createRateLimits({ kind: 'sqlite', db }, settings, createLogger('silent'));
    for (let i = 0; i < 3; i++) await limits.consume(principal, 'svc_asset_library', 'search');
    await expect(limits.consume(principal, 'svc_asset_library', 'search')).rejects.toMatchObject({ code: 'rate_limited' });
    const rows = db.prepare('SELECT key, points FROM rate_limits ORDER BY key').all();
    expect(rows).toEqual([
      { key: 'cheap_key:k1', points: 4 },
      { key: 'cheap_tenant:t1', points: 3 },
    ]);
  });
});
