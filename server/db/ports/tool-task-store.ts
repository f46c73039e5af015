/**
 * Status of a tool task: the states of the MCP Tasks extension (`io.modelcontextprotocol/tasks`, revision
 * 2026-07-28) that Atelier uses. A task never waits for client input, so `input_required` never occurs.
 */
export type ToolTaskStatus = 'working' | 'completed' | 'failed' | 'cancelled';

/** One tool call run as a task, as stored. */
export interface ToolTaskRow {
  /** the task id handed to the client: random, unguessable (lower-case UUID v4) */
  id: string;
  tenantId: string;
  /** router tool and action of the call, e.g. `svc_drafts` / `asset_generate` */
  tool: string;
  action: string;
  status: ToolTaskStatus;
  /** the latest progress line while working; why it ended once terminal; null before the first */
  statusMessage: string | null;
  /**
   * What the call ended with, a JSON object: the `CallToolResult` (status `completed`, `isError` ones
   * included) or the JSON-RPC error object `{code, message, data?}` (status `failed`); null otherwise.
   */
  outcome: Record<string, unknown> | null;
  /** a client asked to cancel (any process may set it; the process doing the work reads it back) */
  cancelRequested: boolean;
  /** until when the owner's claim holds without a renewal, epoch ms (a `working` task past it lost its process) */
  leaseUntilMs: number;
  /** ISO 8601 UTC with ms */
  createdAt: string;
  /** ISO 8601 UTC with ms: the last change of status, message or outcome */
  updatedAt: string;
  /** time to live from creation, ms: the task may be discarded after it */
  ttlMs: number;
}

/** A task to insert: it starts `working`, owned by the process that runs it. */
export interface NewToolTask {
  id: string;
  tenantId: string;
  tool: string;
  action: string;
  /** runner id of the process doing the work */
  owner: string;
  /** ISO 8601 UTC with ms */
  createdAt: string;
  ttlMs: number;
  /** until when the owner's claim holds without a renewal, epoch ms */
  leaseUntilMs: number;
}

/** The answer of `renew`: whether a client asked to cancel, or null when the task is no longer this owner's to run. */
export type ToolTaskRenewal = { cancelRequested: boolean } | null;

/**
 * Port: the durable state of tool calls run as MCP tasks (revision 2026-07-28 Tasks extension), so any
 * server process answers `tasks/get` and `tasks/cancel` for a task another process runs. Lookups take the
 * tenant id first: a task of another tenant behaves as missing. A task expires `ttlMs` after creation
 * (reads as missing, deleted by `sweep`). The process running a task holds a lease on it, renewed while it
 * works; a task whose lease ran out (its process died) is ended as `failed` by `abandonStale`.
 * Implementations: SQLite (server/db/sqlite/tool-tasks.ts) and PostgreSQL (server/db/postgres/tool-tasks.ts); both
 * pass server/db/contract/tool-task-store-contract.ts.
 */
export interface ToolTaskStore {
  /**
   * Insert a new task in status `working`.
   * @throws the driver's unique-violation error when `id` already exists
   */
  create(t: NewToolTask): Promise<void>;
  /** Task `id` of tenant `tenantId`, or undefined when there is none or it expired at `nowMs` (epoch ms). */
  get(tenantId: string, id: string, nowMs: number): Promise<ToolTaskRow | undefined>;
  /**
   * While the task is `working` and owned by `owner`: extend its lease to `leaseUntilMs` and, when
   * `message` is not null and differs from the stored one, store it (and `at` as its update time).
   * @param at ISO 8601 time of the renewal
   */
  renew(id: string, owner: string, message: string | null, leaseUntilMs: number, at: string): Promise<ToolTaskRenewal>;
  /**
   * End a `working` task owned by `owner` with a terminal status, its message and outcome, atomically:
   * of two calls at most one returns true.
   * @returns false when the task is gone, already terminal, or another owner's
   */
  finish(
    id: string,
    owner: string,
    status: Exclude<ToolTaskStatus, 'working'>,
    message: string,
    outcome: Record<string, unknown> | null,
    at: string,
  ): Promise<boolean>;
  /**
   * Record that a client asked to cancel task `id` of `tenantId` (cancellation is cooperative: the owner
   * stops its work when it reads this).
   * @returns `missing` (no such task in the tenant, or expired at `nowMs`), `terminal` (already ended:
   *   nothing to do) or `requested`
   */
  requestCancel(tenantId: string, id: string, nowMs: number): Promise<'missing' | 'terminal' | 'requested'>;
  /**
   * End task `id` as `failed` with `message` (and `error` as its outcome) when it is still `working` and
   * its lease ran out before `nowMs`: the process that ran it stopped.
   * @returns true when it was ended now
   */
  abandonStale(id: string, nowMs: number, message: string, error: Record<string, unknown>, at: string): Promise<boolean>;
  /** Delete every task (any tenant) that expired before `nowMs`. @returns how many */
  sweep(nowMs: number): Promise<number>;
}
