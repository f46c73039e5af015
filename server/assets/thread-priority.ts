import fs from 'node:fs';
import os from 'node:os';

/**
 * Keeps libvips' worker threads at a lower CPU priority than the thread that serves requests.
 *
 * sharp runs every decode, resize and encode on libvips worker threads (named `libvips worker`), which
 * libvips starts on demand from the thread that runs the pipeline, at that thread's priority. On a busy
 * machine an import's pixel work then takes as much CPU as the event loop that answers search and view,
 * and every request waits about twice as long. On Linux a thread's nice value is its own (setpriority(2),
 * NOTES: "the nice value is a per-thread attribute"; PRIO_PROCESS takes a thread id), so raising the
 * nice value of those threads alone leaves the request thread's share whole: the image work runs on what
 * the requests leave and goes at full speed when they leave everything. The same helper raises nothing
 * where `/proc/self/task` does not exist (other systems), where lowering is not permitted, or at nice 0.
 */
export interface ThreadPriority {
  /**
   * Give every libvips worker thread started since the last sweep the configured nice value, unless it
   * already runs at that priority or lower (a higher nice value). Reads the directory `/proc/self/task`
   * once (about 15 µs) and the name (about 15 µs) of each thread new since the last two sweeps.
   */
  sweep(): void;
}

/** Thread name (comm, 15 bytes at most) that libvips gives its worker threads (libvips/iofuncs/thread.c). */
export const LIBVIPS_WORKER_COMM = 'libvips worker';

/**
 * @param nice nice value for the image threads, 0–19 (0 = leave them at the process's priority)
 * @param taskDir the process's thread directory (proc(5)); a parameter for tests
 */
export function createThreadPriority(nice: number, taskDir = '/proc/self/task'): ThreadPriority {
  let enabled = nice > 0 && fs.existsSync(taskDir);
  /**
   * thread id → times its name was read, kept only while the thread lives (ids are reused after a thread
   * exits). A thread is named by itself just after it starts, so a name other than libvips' is read once
   * more on the next sweep before the thread is left alone.
   */
  let seen = new Map<string, number>();
  let lowered = 0;
  return {
    sweep() {
      if (!enabled) return;
      let tids: string[];
      try {
        tids = fs.readdirSync(taskDir);
      } catch {
        enabled = false;
        return;
      }
      const next = new Map<string, number>();
      for (const tid of tids) {
        const reads = seen.get(tid) ?? 0;
        next.set(tid, reads + 1);
        if (reads >= 2) continue;
        let comm: string;
        try {
          comm = fs.readFileSync(`${taskDir}/${tid}/comm`, 'utf8').trim();
        } catch {
          continue; // exited since the directory was read
        }
        if (comm !== LIBVIPS_WORKER_COMM) continue;
        next.set(tid, 2);
        try {
          // only ever lower: a thread already below `nice` (a process started with `nice -n 15`) stays there
          if (os.getPriority(Number(tid)) >= nice) continue;
          os.setPriority(Number(tid), nice);
          lowered++;
        } catch (e) {
          // ESRCH (the thread exited meanwhile): nothing to do. EPERM/EACCES before any success would recur
          // for every thread (no permission here): stop trying.
          const code = (e as NodeJS.ErrnoException).code;
          if (lowered === 0 && (code === 'EPERM' || code === 'EACCES')) enabled = false;
        }
      }
      seen = next;
    },
  };
}
