import fs from 'node:fs';
import os from 'node:os';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { createThreadPriority, LIBVIPS_WORKER_COMM } from './thread-priority.ts';

/** libvips worker threads of this process with their nice values (proc(5): /proc/self/task/<tid>/{comm,stat}) */
function libvipsThreads(): { tid: number; nice: number }[] {
  return fs.readdirSync('/proc/self/task').flatMap((tid) => {
    try {
      if (fs.readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim() !== LIBVIPS_WORKER_COMM) return [];
      const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      return [{ tid: Number(tid), nice: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]) }];
    } catch {
      return []; // exited meanwhile
    }
  });
}

describe.runIf(process.platform === 'linux')('createThreadPriority', () => {
  it('lowers the libvips workers to the given nice value, never raises one that is lower already, and leaves the main thread alone', async () => {
    await sharp({ create: { width: 64, height: 64, channels: 3, background: '#808080' } })
      .png()
      .toBuffer();
    createThreadPriority(10).sweep();
    const lowered = libvipsThreads();
    expect(lowered.length).toBeGreaterThan(0);
    expect(lowered.map((t) => t.nice)).toEqual(lowered.map(() => 10));

    const first = lowered[0]!;
    os.setPriority(first.tid, 15); // as if the process had been started below the configured priority
    createThreadPriority(10).sweep();
    expect(libvipsThreads().find((t) => t.tid === first.tid)?.nice).toBe(15);
    expect(os.getPriority(process.pid)).toBe(0);
  });

  it('does nothing at nice 0', async () => {
    await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } })
      .png()
      .toBuffer();
    const before = libvipsThreads().map((t) => t.nice);
    createThreadPriority(0).sweep();
    expect(libvipsThreads().map((t) => t.nice)).toEqual(before);
  });
});
