import type { Database } from 'better-sqlite3';
import type { NullModel } from '../../domain/search/calibration.ts';
import type { CalibrationStore } from '../ports/calibration-store.ts';

/**
 * The SQLite `CalibrationStore`: stored null models of vector spaces per scope (migration 0023,
 * domain/search/calibration.ts). better-sqlite3 is synchronous: each method does its work before it
 * returns its promise.
 */
export function createSqliteCalibrationStore(db: Database): CalibrationStore {
  const s = {
    get: db.prepare('SELECT items, pairs, center, spread FROM vector_calibrations WHERE space = ? AND scope_id = ?'),
    put: db.prepare(
      `INSERT INTO vector_calibrations (space, scope_id, items, pairs, center, spread, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (space, scope_id) DO UPDATE SET items = excluded.items, pairs = excluded.pairs, center = excluded.center, spread = excluded.spread, updated_at = excluded.updated_at`,
    ),
  };
  return {
    get: async (space, scopeId) => (s.get.get(space, scopeId) as NullModel | undefined) ?? null,
    put: async (space, scopeId, m) => void s.put.run(space, scopeId, m.items, m.pairs, m.center, m.spread, new Date().toISOString()),
  };
}
