import fs from 'node:fs';
import path from 'node:path';

/** A numbered migration file `NNNN_verb_noun.sql` of either backend. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * Read a backend's `migrations/*.sql` (`NNNN_verb_noun.sql`) in version order. Numbers must be unique;
 * gaps are allowed (numbers are reserved per feature, see the folder's README.md), because applied
 * versions are tracked individually.
 * @param dir the backend's migrations folder (db/sqlite/migrations or db/postgres/migrations)
 * @throws Error on a duplicate number, naming both files
 */
export function readMigrationFiles(dir: string): Migration[] {
  const files = fs
    .readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort();
  const migrations = files.map((f) => ({ version: Number(f.slice(0, 4)), name: f, sql: fs.readFileSync(path.join(dir, f), 'utf8') }));
  for (let i = 1; i < migrations.length; i++) {
    if (migrations[i]!.version === migrations[i - 1]!.version) {
      throw new Error(
        `duplicate migration number ${migrations[i]!.name.slice(0, 4)}: ${migrations[i - 1]!.name} and ${migrations[i]!.name} (see ${path.join(dir, 'README.md')} for reserved numbers)`,
      );
    }
  }
  return migrations;
}
