import type { Database } from 'better-sqlite3';
import type { NullModel } from '../../domain/search/calibration.ts';

/** Stored null models of vector spaces per scope (migration 0023, domain/search/calibration.ts). */
export function createCalibrationQueries(db: Database) {
  const s = {
    get: db.prepare('SELECT items, pairs, center, spread FROM vector_calibrations WHERE space = ? AND scope_id = ?'),
    put: db.prepare(
      `INSERT INTO vector_calibrations (space, scope_id, items, pairs, center, spread, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (space, scope_id) DO UPDATE SET items = excluded.items, pairs = excluded.pairs, center = excluded.center, spread = excluded.spread, updated_at = excluded.updated_at`,
    ),
  };
  return {
    /** The stored model of a space in a scope (workspace or store id), or null. */
    get: (space: string, scopeId: string): NullModel | null => (s.get.get(space, scopeId) as NullModel | undefined) ?? null,
    put: (space: string, scopeId: string, m: NullModel): void =>
      void s.put.run(space, scopeId, m.items, m.pairs, m.center, m.spread, new Date().toISOString()),
  };
}
export type CalibrationQueries = ReturnType<typeof createCalibrationQueries>;
