import type { Scope } from '../../domain/scope.ts';

export type PickerStatus = 'awaiting_user' | 'confirmed' | 'declined' | 'cancelled' | 'candidates' | 'expired';
export type PickerDelivery = 'panel' | 'elicitation' | 'text';

/** One picker (one `select` call) with its stored selection. */
export interface PickerRow {
  /** lower-case UUID, the picker_id handed to the agent */
  id: string;
  tenantId: string;
  workspaceId: string;
  themeId: string;
  delivery: PickerDelivery;
  status: PickerStatus;
  /** the select args as parsed (a JSON object) */
  request: Record<string, unknown>;
  /** asset ids in selection order */
  selection: string[];
  /** ISO 8601 UTC with ms (`Date.toISOString()`) */
  createdAt: string;
  /** ISO 8601 UTC with ms, or null while no final answer was stored */
  confirmedAt: string | null;
}

/** A picker to insert; tenant and workspace come from the scope. */
export type NewPicker = Omit<PickerRow, 'tenantId' | 'workspaceId'>;

/**
 * Port: the durable state of asset pickers (svc_asset_select, spec §4.2), so get_selection answers after
 * a panel remount, a reconnect, a restart or on another server process. Every lookup takes the
 * server-derived scope first; a picker of another tenant or workspace behaves as missing. Implementations:
 * SQLite (server/db/sqlite/pickers.ts) and PostgreSQL (server/db/postgres/pickers.ts); both pass
 * server/db/contract/picker-store-contract.ts.
 */
export interface PickerStore {
  /**
   * Insert a new picker.
   * @throws the driver's unique-violation error when `id` already exists (SQLite SQLITE_CONSTRAINT_PRIMARYKEY, Postgres 23505)
   */
  insert(p: NewPicker, scope: Scope): Promise<void>;
  /** The picker `id` (case-insensitive) of `scope`, or undefined. */
  byId(scope: Scope, id: string): Promise<PickerRow | undefined>;
  /**
   * Move an open picker (`awaiting_user` or `candidates`) to a final status with its selection, atomically:
   * of two concurrent calls at most one returns true.
   * @param at ISO 8601 time of the answer
   * @returns false when the picker is missing in `scope` or already final
   */
  finish(scope: Scope, id: string, status: Exclude<PickerStatus, 'awaiting_user'>, selection: string[], at: string): Promise<boolean>;
  /** Move every picker (any scope) still awaiting the user and created before `cutoffIso` to `expired`. @returns how many */
  expireBefore(cutoffIso: string): Promise<number>;
}
