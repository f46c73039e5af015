import type { NullModel } from '../../domain/search/calibration.ts';

export type { NullModel } from '../../domain/search/calibration.ts';

/**
 * Port: the stored null models of calibrated acceptance (domain/search/calibration.ts), one per vector space
 * and scope. `space` names the model (`asset_text:<model>:<dims>`, `asset_visual:<model>:<dims>`,
 * `product:<model>`; the word null of coverage as three, `asset_word_null:<model>:<dims>:1`, `…:16` and
 * `…:all`, domain/search/word-null.ts), `scopeId` the workspace (assets) or store (products) whose data it was estimated
 * on. Values come back exactly as written (float64 `center` and `spread`, integer `items` and `pairs`).
 * Implementations: SQLite (server/db/sqlite/calibrations.ts) and
 * PostgreSQL (server/db/postgres/calibrations.ts); both pass server/db/contract/calibration-store-contract.ts.
 */
export interface CalibrationStore {
  /** The stored model of a space in a scope, or null. */
  get(space: string, scopeId: string): Promise<NullModel | null>;
  /** Insert or replace the model of a space in a scope (the last write wins). */
  put(space: string, scopeId: string, model: NullModel): Promise<void>;
}
