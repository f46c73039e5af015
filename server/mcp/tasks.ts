import { randomUUID } from 'node:crypto';
import {
  CallToolResultV2Schema,
  CLIENT_CAPABILITIES_META_KEY_V2,
  CreateTaskResultV2Schema,
  DetailedTaskV2Schema,
  hasTaskClientCapabilityV2,
  TASKS_EXTENSION_ID_V2,
  type CreateTaskResultV2,
  type DetailedTaskV2,
} from '@modelcontextprotocol/ext-tasks/core/v2';
import { ProtocolErrorCode, type CallToolResult, type ClientCapabilities } from '@modelcontextprotocol/server';
import type { ToolTaskRow, ToolTaskStore } from '../db/ports/tool-task-store.ts';
import type { Principal } from '../domain/scope.ts';
import type { Logger } from '../log.ts';
import type { InflightCalls } from './inflight.ts';

/**
 * Tool calls run as tasks of the MCP Tasks extension (`io.modelcontextprotocol/tasks`, revision 2026-07-28:
 * https://modelcontextprotocol.github.io/ext-tasks/specification/2026-07-28/tasks.html). The process that
 * receives the `tools/call` stores the task, answers with the `CreateTaskResult` at once and runs the call
 * in the background; every change (progress line, outcome, a client's cancel request) goes through the
 * `ToolTaskStore`, so any process answers `tasks/get` and `tasks/cancel` (task-methods.ts). Wire shapes
 * are parsed with ext-tasks' generated V2 schemas.
 */

/** The server capability entry of the extension (no settings are defined: an empty object). */
export const TASKS_SERVER_CAPABILITY = { extensions: { [TASKS_EXTENSION_ID_V2]: {} } } as const;

/** Whether a request's client capabilities declare the Tasks extension (ext-tasks' own check of the `_meta` envelope). */
export function clientDeclaresTasks(capabilities: ClientCapabilities | undefined): boolean {
  return hasTaskClientCapabilityV2({ _meta: { [CLIENT_CAPABILITIES_META_KEY_V2]: capabilities } });
}

/** The work of one task: the call's own tool result, `isError` ones included (never throws for a tool error). */
export type TaskWork = (signal: AbortSignal, progress: (message: string) => void) => Promise<CallToolResult>;

/** The tool tasks of this process: started here, read and cancelled from any process. */
export interface ToolTasks {
  /**
   * Store a new task of `principal`'s tenant, start `work` in the background and return the
   * `CreateTaskResult` (`resultType: "task"`, status `working`). The task is durable before this returns.
   * @throws the store's error when the task cannot be stored (nothing is started then)
   */
  start(principal: Principal, tool: string, action: string, work: TaskWork): Promise<CreateTaskResultV2>;
  /** The task as `tasks/get` reports it, or undefined when the tenant has no such task (or it expired). */
  get(principal: Principal, taskId: string): Promise<DetailedTaskV2 | undefined>;
  /**
   * Ask a task to stop: its provider request is aborted (here at once, on another process at its next
   * renewal) and it ends `cancelled`, unless it finished first.
   * @returns false when the tenant has no such task
   */
  cancel(principal: Principal, taskId: string): Promise<boolean>;
  /** Delete expired tasks (any tenant). @returns how many */
  sweep(): Promise<number>;
  /** Stop the tasks this process runs (they end `failed`: the server stopped) and wait for them. */
  close(): Promise<void>;
}

/** A working task whose process stopped renewing its lease ends with this JSON-RPC error. */
const STOPPED = {
  code: ProtocolErrorCode.InternalError,
  message: 'the server process running this task stopped before it finished (credits are charged only for a stored asset)',
};

/** One task this process runs. */
interface Run {
  id: string;
  tool: string;
  action: string;
  abort: AbortController;
  /** a client's cancel request reached the run (directly or through the store) */
  cancelled: boolean;
  /** called once the run has stored its end (set by `close`, which waits for it) */
  settled?: () => void;
}

/** How a task ended, as stored. */
interface Ending {
  status: 'completed' | 'failed' | 'cancelled';
  message: string;
  outcome: Record<string, unknown> | null;
}

/** Stop a run for a client's cancel request (its provider request is aborted through the signal). */
function stop(run: Run): void {
  if (run.cancelled) return;
  run.cancelled = true;
  run.abort.abort(new Error('cancelled by the client (tasks/cancel)'));
}

/** Text of a tool result's first text block, shortened to one line for a status message. */
function summaryOf(result: CallToolResult): string {
  const text = result.content.find((c) => c.type === 'text')?.text ?? '';
  const line = text.split('\n', 1)[0] ?? '';
  const head = line.length > 300 ? `${line.slice(0, 299)}…` : line;
  return result.isError ? `ended with an error: ${head}` : head || 'completed';
}

/**
 * The tool tasks of one process over `store`.
 * @param o.tickMs how often a running task renews its lease, writes its latest progress line and reads a
 *   cancel request back, ms; also the `pollIntervalMs` suggested to clients (nothing changes faster)
 * @param o.ttlMs how long a task is kept after creation, ms (the `ttlMs` of every task): longer than any call
 * @param o.inflight running tasks count as calls in progress (a shutdown lets them finish within its grace)
 */
export function createToolTasks(o: {
  store: ToolTaskStore;
  log: Logger;
  tickMs: number;
  ttlMs: number;
  inflight?: InflightCalls;
}): ToolTasks {
  const { store, log } = o;
  const owner = randomUUID();
  // a process stalled this long (or dead) loses its tasks: far beyond a tick, so a busy event loop does not
  const leaseMs = Math.max(30_000, 12 * o.tickMs);
  /** the tasks this process runs, by id: a cancel arriving here stops the work at once */
  const running = new Map<string, Run>();
  let closing = false;

  const view = (row: ToolTaskRow): DetailedTaskV2 => {
    const base = {
      taskId: row.id,
      ...(row.statusMessage ? { statusMessage: row.statusMessage } : {}),
      createdAt: row.createdAt,
      lastUpdatedAt: row.updatedAt,
      ttlMs: row.ttlMs,
      pollIntervalMs: o.tickMs,
    };
    if (row.status === 'completed') return DetailedTaskV2Schema.parse({ ...base, status: 'completed', result: row.outcome });
    if (row.status === 'failed') return DetailedTaskV2Schema.parse({ ...base, status: 'failed', error: row.outcome ?? STOPPED });
    return DetailedTaskV2Schema.parse({ ...base, status: row.status });
  };

  /** How a run ended, as stored: a tool error caused by the abort of a cancel or a shutdown is not a tool result. */
  const ending = (run: Run, result: CallToolResult): Ending => {
    if (result.isError && run.abort.signal.aborted && run.cancelled)
      return { status: 'cancelled', message: 'cancelled by the client; nothing was generated or charged', outcome: null };
    if (result.isError && run.abort.signal.aborted && closing) return { status: 'failed', message: STOPPED.message, outcome: STOPPED };
    // the inline result is the call's 2026-07-28 wire result: `resultType` is required there (the SDK stamps it
    // on direct answers only)
    return {
      status: 'completed',
      message: summaryOf(result),
      outcome: CallToolResultV2Schema.parse({ ...result, resultType: 'complete' }),
    };
  };

  /** Run `work` for `run` to its end, renewing the lease meanwhile, and store how it ended (unless the lease was lost). */
  async function drive(run: Run, work: TaskWork): Promise<void> {
    let message: string | null = null;
    let lost = false;
    const tick = setInterval(() => {
      void store
        .renew(run.id, owner, message, Date.now() + leaseMs, new Date().toISOString())
        .then((r) => {
          if (r === null) {
            lost = true;
            run.abort.abort(new Error('the task ended elsewhere (expired, or taken as stale)'));
          } else if (r.cancelRequested) stop(run);
        })
        .catch((err: unknown) => log.warn({ err, task_id: run.id }, 'task lease renewal failed; retried at the next tick'));
    }, o.tickMs);
    tick.unref();
    const started = performance.now();
    let end: Ending;
    try {
      end = ending(run, await work(run.abort.signal, (m) => void (message = m)));
    } catch (err) {
      log.error({ err, task_id: run.id, router: run.tool, action: run.action }, 'task failed');
      end = {
        status: 'failed',
        message: 'internal error (see server log)',
        outcome: { code: ProtocolErrorCode.InternalError, message: 'internal error' },
      };
    } finally {
      clearInterval(tick);
    }
    if (lost) return;
    const stored = await store.finish(run.id, owner, end.status, end.message, end.outcome, new Date().toISOString());
    log.info(
      {
        task_id: run.id,
        router: run.tool,
        action: run.action,
        status: end.status,
        stored,
        duration_ms: Math.round(performance.now() - started),
      },
      'tool task ended',
    );
  }

  return {
    async start(principal, tool, action, work) {
      const now = Date.now();
      const id = randomUUID();
      const createdAt = new Date(now).toISOString();
      await store.create({ id, tenantId: principal.tenantId, tool, action, owner, createdAt, ttlMs: o.ttlMs, leaseUntilMs: now + leaseMs });
      const run: Run = { id, tool, action, abort: new AbortController(), cancelled: false };
      const settled = o.inflight?.begin();
      running.set(id, run);
      void drive(run, work)
        .catch((err: unknown) => log.error({ err, task_id: id }, 'task outcome could not be stored'))
        .finally(() => {
          running.delete(id);
          settled?.();
          run.settled?.();
        });
      return CreateTaskResultV2Schema.parse({
        resultType: 'task',
        taskId: id,
        status: 'working',
        createdAt,
        lastUpdatedAt: createdAt,
        ttlMs: o.ttlMs,
        pollIntervalMs: o.tickMs,
      });
    },
    async get(principal, taskId) {
      const now = Date.now();
      let row = await store.get(principal.tenantId, taskId, now);
      if (row?.status === 'working' && row.leaseUntilMs < now && !running.has(row.id)) {
        await store.abandonStale(row.id, now, STOPPED.message, STOPPED, new Date(now).toISOString());
        row = await store.get(principal.tenantId, taskId, now);
      }
      return row ? view(row) : undefined;
    },
    async cancel(principal, taskId) {
      const answer = await store.requestCancel(principal.tenantId, taskId, Date.now());
      if (answer === 'missing') return false;
      const here = running.get(taskId.toLowerCase());
      if (answer === 'requested' && here) stop(here);
      return true;
    },
    sweep: () => store.sweep(Date.now()),
    async close() {
      closing = true;
      const all = [...running.values()].map((r) => new Promise<void>((resolve) => (r.settled = resolve)));
      for (const r of running.values()) r.abort.abort(new Error('the server is stopping'));
      await Promise.all(all);
    },
  };
}
