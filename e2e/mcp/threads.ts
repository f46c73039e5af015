import fs from 'node:fs';

/** One thread of this process as proc(5) shows it. */
export interface ProcThread {
  /** thread id (`/proc/self/task/<tid>`); the main thread's equals `process.pid` */
  tid: number;
  /** thread name, at most 15 bytes (`comm`) */
  comm: string;
  /** nice value, −20–19 (`stat` field 19; per thread on Linux, setpriority(2)) */
  nice: number;
}

/**
 * The threads of this process with their names and nice values, for tests of thread priorities (Linux only:
 * reads `/proc/self/task`). Threads that exit while the directory is read are left out.
 */
export function threadsOfThisProcess(): ProcThread[] {
  return fs.readdirSync('/proc/self/task').flatMap((tid) => {
    try {
      const comm = fs.readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
      const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      // fields after the parenthesised name: state is field 3, nice field 19
      return [{ tid: Number(tid), comm, nice: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]) }];
    } catch {
      return []; // exited meanwhile
    }
  });
}
