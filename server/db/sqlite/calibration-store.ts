import type { Database } from 'better-sqlite3';
import type { CalibrationStore } from '../ports/calibration-store.ts';
import { createCalibrationQueries } from './vector-calibrations.ts';

/**
 * The SQLite `CalibrationStore`: an adapter over the synchronous queries of
 * server/db/sqlite/vector-calibrations.ts (migration 0023). better-sqlite3 is synchronous: each method does its
 * work before it returns its promise.
 */
export function createSqliteCalibrationStore(db: Database): CalibrationStore {
  const q = createCalibrationQueries(db);
  return {
    get: async (space, scopeId) => q.get(space, scopeId),
    put: async (space, scopeId, model) => q.put(space, scopeId, model),
  };
}
