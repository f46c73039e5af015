import { busyError } from '../errors.ts';

/** An admitted import; `release` once it has finished (stored or failed). Idempotent. */
export interface ImportSlot {
  release(): void;
}

/** Admission of imports with a fair share per tenant (issue 36 finding 4). */
export interface ImportAdmission {
  /**
   * Admit one import of `tenantId`, or refuse it at once: past the server's limit, or past the tenant's
   * share (`tenantShare`) of it.
   * @throws ServiceError busy with `details.retry_after_ms` (ms until a slot is likely free), `details.active_imports`
   *   (the server's), `details.tenant_active_imports` and `details.tenant_share`
   */
  admit(tenantId: string): ImportSlot;
  /** Imports the tenant may hold now, given who else holds some: see `fairShare`. */
  tenantShare(tenantId: string): number;
  /** admitted imports not yet released, all tenants */
  readonly active: number;
}

/** Weight of the newest duration in the moving average behind the retry hint. */
const EWMA_ALPHA = 0.3;
/** Retry hint before any import has finished, and its bounds, ms. */
const DEFAULT_IMPORT_MS = 2000;
const MIN_RETRY_MS = 250;
const MAX_RETRY_MS = 60_000;
/** A refused tenant counts as wanting slots for twice its retry hint plus this, ms. */
const WAIT_GRACE_MS = 1000;

/**
 * The share of `max` import slots one tenant may hold while `tenants` tenants (itself included) hold
 * imports or were refused one lately (they are retrying): an equal part, max(1, ⌊max / n⌋); alone, every slot
 * but one (a single-tenant server loses one slot, not half), so a second tenant always finds a free slot
 * however hard the first one imports. A tenant
 * above its share (others arrived after it took its slots) keeps what it holds but is admitted again only
 * once below it, so the slots it frees go to the newcomers. Processor sharing among the tenants with
 * demand, as in max-min fair allocation (Bertsekas & Gallager, Data Networks, §6.5.2).
 */
export function fairShare(max: number, tenants: number): number {
  return tenants <= 1 ? Math.max(1, max - 1) : Math.max(1, Math.floor(max / tenants));
}

/**
 * Counting admission with fair shares. Imports are refused rather than queued (a refusal changes nothing,
 * the caller retries after `retry_after_ms`), so a flood of one tenant holds at most its share and never
 * builds a queue in front of the others. The retry hint follows Little's law: with `n` imports in progress,
 * each taking `t` ms from admission to release on average, one finishes about every `t / n` ms.
 * @param max imports in progress at once on the server, ≥ 1
 */
export function createImportAdmission(max: number): ImportAdmission {
  if (!(max >= 1)) throw new RangeError('import admission limit must be ≥ 1');
  const held = new Map<string, number>();
  /** tenants refused lately (until when, performance.now() ms): they want slots, so they count for the shares */
  const waiting = new Map<string, number>();
  let active = 0;
  let avgImportMs = DEFAULT_IMPORT_MS;
  const share = (tenantId: string): number => {
    const now = performance.now();
    let tenants = held.size;
    for (const [t, until] of waiting) {
      if (until <= now) waiting.delete(t);
      else if (!held.has(t)) tenants++;
    }
    return fairShare(max, tenants + (held.has(tenantId) || waiting.has(tenantId) ? 0 : 1));
  };
  const retryMs = (inProgress: number): number =>
    Math.round(Math.min(MAX_RETRY_MS, Math.max(MIN_RETRY_MS, avgImportMs / Math.max(1, inProgress))));
  /** a refused tenant keeps its claim while a retry after the hint can be expected */
  const refuse = (tenantId: string, ms: number): void => void waiting.set(tenantId, performance.now() + 2 * ms + WAIT_GRACE_MS);
  return {
    admit(tenantId) {
      const mine = held.get(tenantId) ?? 0;
      const allowed = share(tenantId);
      const details = { active_imports: active, tenant_active_imports: mine, tenant_share: allowed };
      if (active >= max) {
        const ms = retryMs(active);
        refuse(tenantId, ms);
        throw busyError(
          `the server is processing ${active} imports, its limit; nothing was imported or changed. Retry the same call in about ${ms} ms`,
          ms,
          details,
        );
      }
      if (mine >= allowed) {
        const ms = retryMs(mine);
        refuse(tenantId, ms);
        throw busyError(
          `this tenant has ${mine} imports in progress, its fair share of the server's ${max} while other tenants import; nothing was imported or changed. Retry the same call in about ${ms} ms`,
          ms,
          details,
        );
      }
      held.set(tenantId, mine + 1);
      waiting.delete(tenantId);
      active++;
      const started = performance.now();
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          active--;
          const left = (held.get(tenantId) ?? 1) - 1;
          if (left > 0) held.set(tenantId, left);
          else held.delete(tenantId);
          avgImportMs = EWMA_ALPHA * (performance.now() - started) + (1 - EWMA_ALPHA) * avgImportMs;
        },
      };
    },
    tenantShare: share,
    get active() {
      return active;
    },
  };
}
