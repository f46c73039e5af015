/**
 * Tool calls in progress in one process, so a shutdown (stdin end, SIGTERM, SIGINT) can let writes that
 * have started finish before the database closes.
 */
export interface InflightCalls {
  /** Count one call as started; the returned function marks it settled (call it exactly once). */
  begin(): () => void;
  /** Calls started and not yet settled. */
  count(): number;
  /**
   * Wait until no call is in progress, at most `timeoutMs`.
   * @returns true when idle, false when calls were still running at the deadline
   */
  idle(timeoutMs: number): Promise<boolean>;
}

/** An in-process counter of running calls with waiters for idleness. */
export function createInflightCalls(): InflightCalls {
  let n = 0;
  let waiters: (() => void)[] = [];
  return {
    begin() {
      n++;
      let done = false;
      return () => {
        if (done) return;
        done = true;
        n--;
        if (n === 0) {
          const w = waiters;
          waiters = [];
          for (const f of w) f();
        }
      };
    },
    count: () => n,
    async idle(timeoutMs) {
      if (n === 0) return true;
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), timeoutMs);
        timer.unref();
        waiters.push(() => {
          clearTimeout(timer);
          resolve(true);
        });
      });
    },
  };
}
