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
    migrate(db, all.filter((m) => m.version < 8));
    const insert = db.prepare(`INSERT INTO assets (id, tenant_id, workspace_id, kind, format, mime_type, width, height, size_bytes, sha256, source_sha256, name, tags, auto_tags, source, created_at)
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
    const hits = (q: string): string[] => (db.prepare('SELECT a.id FROM assets_fts JOIN assets a ON a.seq = assets_fts.rowid WHERE assets_fts MATCH ? ORDER BY a.id').all(q) as { id: string }[]).map((r) => r.id);
    expect(hits('tags:landscape')).toEqual(['a1']);
    expect(hits('tags:portrait')).toEqual([]);
    expect(hits('tags:blue')).toEqual(['a2']);
  });
});
