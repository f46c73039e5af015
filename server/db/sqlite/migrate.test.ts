import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { loadMigrations, migrate } from './migrate.ts';

describe('migrate', () => {
  it('applies each migration once and records it', () => {
    const db = new Database(':memory:');
    const all = loadMigrations();
    expect(migrate(db, all)).toEqual(all.map((m) => m.version));
    expect(migrate(db, all)).toEqual([]);
    expect(db.pragma('user_version', { simple: true })).toBe(all.at(-1)!.version);
  });

  it('0008 strips orientation from automatic tags only, and the FTS index follows', () => {
    const db = new Database(':memory:');
    db.pragma('foreign_keys = OFF');
    const all = loadMigrations();
    migrate(
      db,
      all.filter((m) => m.version < 8),
    );
    const insert =
      db.prepare(`INSERT INTO assets (id, tenant_id, workspace_id, kind, format, mime_type, width, height, size_bytes, sha256, source_sha256, name, tags, auto_tags, source, created_at)
      VALUES (?, 't', 'w', 'image', 'jpeg', 'image/jpeg', 800, 600, 1, ?, ?, ?, ?, ?, 'cli', '2026-01-01T00:00:00Z')`);
    insert.run('a1', 's1', 's1', 'ridge.jpg', '["landscape","mountain"]', '["green","landscape","text"]');
    insert.run('a2', 's2', 's2', 'tall.jpg', '[]', '["portrait","blue"]');
    insert.run('a3', 's3', 's3', 'none.jpg', '[]', '[]');
    migrate(db, all);
    const tags = db.prepare('SELECT id, tags, auto_tags FROM assets ORDER BY id').all();
    expect(tags).toEqual([
      { id: 'a1', tags: '["landscape","mountain"]', auto_tags: '["green","text"]' },
      { id: 'a2', tags: '[]', auto_tags: '["blue"]' },
      { id: 'a3', tags: '[]', auto_tags: '[]' },
    ]);
    const hits = (q: string): string[] =>
      (
        db
          .prepare('SELECT a.id FROM assets_fts JOIN assets a ON a.seq = assets_fts.rowid WHERE assets_fts MATCH ? ORDER BY a.id')
          .all(q) as { id: string }[]
      ).map((r) => r.id);
    expect(hits('tags:landscape')).toEqual(['a1']);
    expect(hits('tags:portrait')).toEqual([]);
    // 0022: colour auto tags stay in auto_tags (facts) but are no FTS words; other auto tags are
    expect(hits('tags:blue')).toEqual([]);
    expect(hits('tags:text')).toEqual(['a1']);
    expect(hits('name:ridge')).toEqual(['a1']);
  });

  it('0016 drops the plain demo API key from settings and keeps the ids', () => {
    const db = new Database(':memory:');
    const all = loadMigrations();
    migrate(
      db,
      all.filter((m) => m.version < 16),
    );
    db.prepare('INSERT INTO settings (key, value) VALUES (?, ?)').run(
      'demo_bundle',
      JSON.stringify({ tenant_id: 't', workspace_id: 'w', theme_id: 'th', store_id: 's', api_key: 'atl_secret' }),
    );
    migrate(db, all);
    const v = JSON.parse((db.prepare("SELECT value FROM settings WHERE key = 'demo_bundle'").get() as { value: string }).value) as unknown;
    expect(v).toEqual({ tenant_id: 't', workspace_id: 'w', theme_id: 'th', store_id: 's' });
  });

  it('0030 makes the oldest theme of each existing workspace its default, and allows one default per workspace', () => {
    const db = new Database(':memory:');
    const all = loadMigrations();
    migrate(
      db,
      all.filter((m) => m.version < 30),
    );
    db.exec(`INSERT INTO tenants (id, name, created_at) VALUES ('t', 'T', '2026-01-01');
      INSERT INTO workspaces (id, tenant_id, name, created_at) VALUES ('w1', 't', 'One', '2026-01-01'), ('w2', 't', 'Two', '2026-01-01'), ('w3', 't', 'Empty', '2026-01-01');
      INSERT INTO themes (id, tenant_id, workspace_id, name, created_at) VALUES
        ('b-newer', 't', 'w1', 'Newer', '2026-02-01'), ('a-older', 't', 'w1', 'Older', '2026-01-15'), ('c-only', 't', 'w2', 'Only', '2026-03-01');`);
    migrate(db, all);
    expect(db.prepare('SELECT id, is_default FROM themes ORDER BY id').all()).toEqual([
      { id: 'a-older', is_default: 1 },
      { id: 'b-newer', is_default: 0 },
      { id: 'c-only', is_default: 1 },
    ]);
    expect(() => db.prepare("UPDATE themes SET is_default = 1 WHERE id = 'b-newer'").run()).toThrow(/UNIQUE/);
  });
});
