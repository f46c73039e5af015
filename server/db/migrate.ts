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

/** Read `db/migrations/*.sql` in version order. @throws Error on a gap or duplicate number. */
export function loadMigrations(dir = MIGRATIONS_DIR): Migration[] {
  const files = fs.readdirSync(dir).filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f)).sort();
  const migrations = files.map((f) => ({ version: Number(f.slice(0, 4)), name: f, sql: fs.readFileSync(path.join(dir, f), 'utf8') }));
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`migration numbering broken at ${m.name}: expected ${String(i + 1).padStart(4, '0')}`);
  });
  return migrations;
}

/**
 * Apply pending migrations, each in its own transaction, recording the version in `PRAGMA user_version`.
 * @returns the versions applied now
 */
export function migrate(db: Database, migrations: Migration[] = loadMigrations()): number[] {
  const current = db.pragma('user_version', { simple: true }) as number;
  const applied: number[] = [];
  for (const m of migrations) {
    if (m.version <= current) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    })();
    applied.push(m.version);
  }
  return applied;
}
