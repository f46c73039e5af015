import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Database } from 'better-sqlite3';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/** A numbered migration file `NNNN_verb_noun.sql`. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * Read `db/migrations/*.sql` in version order. Numbers must be unique; gaps are allowed (numbers are
 * reserved per feature, see migrations/README.md), because applied versions are tracked individually.
 * @throws Error on a duplicate number
 */
export function loadMigrations(dir = MIGRATIONS_DIR): Migration[] {
  const files = fs.readdirSync(dir).filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f)).sort();
  const migrations = files.map((f) => ({ version: Number(f.slice(0, 4)), name: f, sql: fs.readFileSync(path.join(dir, f), 'utf8') }));
  for (let i = 1; i < migrations.length; i++) {
    if (migrations[i]!.version === migrations[i - 1]!.version) {
      throw new Error(`duplicate migration number ${migrations[i]!.name.slice(0, 4)}: ${migrations[i - 1]!.name} and ${migrations[i]!.name} (see server/db/migrations/README.md for reserved numbers)`);
    }
  }
  return migrations;
}

/**
 * Apply every migration not yet applied, in version order, each in its own transaction. Applied
 * versions are recorded in `schema_migrations`; `PRAGMA user_version` holds the highest applied version
 * (so external tools see the schema level).
 * @returns the versions applied now
 */
export function migrate(db: Database, migrations: Migration[] = loadMigrations()): number[] {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT');
  const done = new Set((db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version));
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  const applied: number[] = [];
  for (const m of migrations) {
    if (done.has(m.version)) continue;
    db.transaction(() => {
      db.exec(m.sql);
      record.run(m.version, m.name, new Date().toISOString());
      const max = Math.max(m.version, db.pragma('user_version', { simple: true }) as number);
      db.pragma(`user_version = ${max}`);
    })();
    applied.push(m.version);
  }
  return applied;
}
