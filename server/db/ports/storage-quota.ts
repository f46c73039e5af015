/**
 * Per-tenant storage quota (issue 36 finding 10). A tenant's usage is computed from the rows, never kept
 * in a counter that deletes, sweeps and crashes would have to follow:
 * - stored assets: every asset's original (`assets.size_bytes`) plus its renditions
 *   (`asset_renditions.size_bytes`), in every workspace of the tenant. Each asset counts its own bytes, as
 *   the tenant sees them in the library: two workspaces holding the same file count it twice (the blob
 *   store keeps it once), and bytes shared with another tenant count for both, so usage never depends on
 *   what another tenant holds.
 * - staged uploads: the declared `size_bytes` of every live upload session still `receiving` or `staged`
 *   (an attachment not imported yet). An imported upload counts as its asset instead.
 * The check and the write it guards run in one transaction that first serialises the tenant's writers
 * (SQLite: BEGIN IMMEDIATE, one writer per database file; PostgreSQL: the tenant's row locked FOR NO KEY
 * UPDATE), so two concurrent writes near the limit cannot both pass, whichever processes make them.
 */

/** A tenant's usage, bytes. */
export interface StorageUsage {
  /** originals and renditions of the tenant's assets */
  assetBytes: number;
  /** declared sizes of its live receiving or staged uploads */
  stagedBytes: number;
}

/** The check a write runs in its transaction. */
export interface QuotaCheck {
  /** the tenant's limit, bytes (> 0; no check is made for an unlimited tenant) */
  limitBytes: number;
  /** epoch ms: uploads expiring at or before it are not counted */
  nowMs: number;
  /** an upload whose staged bytes the write turns into an asset (not counted twice) */
  exceptUploadId?: string | undefined;
}

/** Thrown by a store write that `QuotaCheck` refused; nothing was written. */
export class QuotaExceededError extends Error {
  constructor(
    readonly limitBytes: number,
    readonly usage: StorageUsage,
    /** bytes the refused write would have added */
    readonly requestedBytes: number,
  ) {
    super(`storage quota of ${limitBytes} bytes exceeded`);
    this.name = 'QuotaExceededError';
  }
}

/**
 * Throw `QuotaExceededError` when `usage` plus `requestedBytes` is over `check.limitBytes`.
 * @throws QuotaExceededError
 */
export function enforceQuota(check: QuotaCheck, usage: StorageUsage, requestedBytes: number): void {
  if (usage.assetBytes + usage.stagedBytes + requestedBytes > check.limitBytes)
    throw new QuotaExceededError(check.limitBytes, usage, requestedBytes);
}
