import type { CalibrationStore, NullModel } from '../ports/calibration-store.ts';
import type { PgPool } from './pool.ts';

/**
 * The PostgreSQL `CalibrationStore`: rows of `vector_calibrations` (postgres/migrations/0008), one per
 * space and scope, replaced by an upsert (concurrent writers: the last one wins, as on SQLite).
 */
export function createPgCalibrationStore(pool: PgPool): CalibrationStore {
  return {
    async get(space, scopeId) {
      const r = await pool.query<NullModel>(
        'SELECT items, pairs, center, spread FROM vector_calibrations WHERE space = $1 AND scope_id = $2',
        [space, scopeId],
      );
      return r.rows[0] ?? null;
    },
    async put(space, scopeId, m) {
      await pool.query(
        `INSERT INTO vector_calibrations (space, scope_id, items, pairs, center, spread, updated_at) VALUES ($1, $2, $3, $4, $5, $6, now())
         ON CONFLICT (space, scope_id) DO UPDATE SET items = excluded.items, pairs = excluded.pairs, center = excluded.center,
           spread = excluded.spread, updated_at = excluded.updated_at`,
        [space, scopeId, m.items, m.pairs, m.center, m.spread],
      );
    },
  };
}
