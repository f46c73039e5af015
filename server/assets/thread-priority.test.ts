import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { threadsOfThisProcess } from '../../e2e/mcp/threads.ts';
import { createThreadPriority, LIBVIPS_WORKER_COMM } from './thread-priority.ts';

/** libvips worker threads of this process with their nice values */
function libvipsThreads(): { tid: number; nice: number }[] {
  return threadsOfThisProcess().filter((t) => t.comm === LIBVIPS_WORKER_COMM);
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

  it('keeps working after a libvips thread exits between listing and lowering it', async () => {
    await sharp({ create: { width: 16, height: 16, channels: 3, background: '#404040' } })
      .png()
      .toBuffer();
    const real = libvipsThreads()[0]!; // at 10 or 15 after the test above: below 19
    // a task directory whose first sweep sees only a thread that no longer exists (setpriority: ESRCH)
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-task-'));
    const thread = (tid: number): void => {
      fs.mkdirSync(path.join(dir, String(tid)));
      fs.writeFileSync(path.join(dir, String(tid), 'comm'), `${LIBVIPS_WORKER_COMM}\n`);
    };
    try {
      thread(2 ** 22 + 1); // above the kernel's pid_max limit (2^22): never a live thread
      const priority = createThreadPriority(19, dir);
      priority.sweep();
      thread(real.tid);
      priority.sweep();
      expect(os.getPriority(real.tid)).toBe(19);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
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
