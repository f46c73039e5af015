import fs from 'node:fs';
import path from 'node:path';

/**
 * TEST ONLY: named pause points at the critical instants of crash and race windows (upload `complete`
 * between assembly and import, blob GC between its decision and the unlink, enrichment mid-analysis,
 * migrations inside their transaction, import before its row is written). Behaviour tests enable them
 * with `ATELIER_TEST_PAUSE_AT` (comma-separated point names) and `ATELIER_TEST_PAUSE_DIR`, then kill the
 * real process there or race a second process against it. Unset (always, outside tests) every call is
 * a no-op that returns at once.
 *
 * Protocol: at an enabled point the process writes `<dir>/<point>.<pid>.paused` and waits until
 * `<dir>/<point>.resume` exists (it then removes its own `.paused` file and goes on).
 */
export interface TestHooks {
  /** Pause at `point` if enabled (async wait, the event loop keeps running). */
  pause(point: string): Promise<void>;
  /** Pause at `point` if enabled, blocking the thread (for synchronous code such as migrations). */
  pauseSync(point: string): void;
}

/** Hooks that never pause. */
export const NO_TEST_HOOKS: TestHooks = { pause: async () => undefined, pauseSync: () => undefined };

const POLL_MS = 20;

/**
 * Build the hooks from config values (`ATELIER_TEST_PAUSE_AT`, `ATELIER_TEST_PAUSE_DIR`).
 * @param points enabled point names; empty = no-op hooks
 */
export function createTestHooks(points: string[], dir: string | null): TestHooks {
  if (points.length === 0 || !dir) return NO_TEST_HOOKS;
  const enabled = new Set(points);
  const mark = (point: string): { paused: string; resume: string } => {
    fs.mkdirSync(dir, { recursive: true });
    const paused = path.join(dir, `${point}.${process.pid}.paused`);
    fs.writeFileSync(paused, String(Date.now()));
    return { paused, resume: path.join(dir, `${point}.resume`) };
  };
  return {
    async pause(point) {
      if (!enabled.has(point)) return;
      const m = mark(point);
      while (!fs.existsSync(m.resume)) await new Promise((r) => setTimeout(r, POLL_MS));
      fs.rmSync(m.paused, { force: true });
    },
    pauseSync(point) {
      if (!enabled.has(point)) return;
      const m = mark(point);
      const cell = new Int32Array(new SharedArrayBuffer(4));
      while (!fs.existsSync(m.resume)) Atomics.wait(cell, 0, 0, POLL_MS);
      fs.rmSync(m.paused, { force: true });
    },
  };
}
