import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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
    // the library's one-statement upsert runs as SQLite's own automatic transaction, no BEGIN around it
    expect(client.transaction(() => [(a.get() as { n: number }).n, db.inTransaction])()).toEqual([0, false]);
  });
  it('counts calls from two connections to one database file together', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-rl-'));
    const file = path.join(dir, 'limits.db');
    const [one, two] = [new Database(file), new Database(file)];
    one.pragma('journal_mode = WAL');
    one.exec('CREATE TABLE rate_limits (key TEXT PRIMARY KEY, points INTEGER NOT NULL DEFAULT 0, expire INTEGER)');
    const settings = { cheapPerKey: 5, cheapPerTenant: 100, costlyPerKey: 1, costlyPerTenant: 100, requestsPerKey: 100 };
    const [a, b] = [one, two].map((db) => createRateLimits({ kind: 'sqlite', db }, settings, createLogger('silent')));
    await Promise.all([0, 1, 2, 3, 4].map((i) => (i % 2 ? a! : b!).consume(principal, 'svc_asset_library', 'search')));
    await expect(b!.consume(principal, 'svc_asset_library', 'search')).rejects.toMatchObject({ code: 'rate_limited' });
    expect(one.prepare("SELECT points FROM rate_limits WHERE key = 'cheap_key:k1'").pluck().get()).toBe(6);
    one.close();
    two.close();
    fs.rmSync(dir, { recursive: true, force: true });
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
