import os from 'node:os';
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

  it('does nothing at nice 0', async () => {
    await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } })
      .png()
      .toBuffer();
    const before = libvipsThreads().map((t) => t.nice);
    createThreadPriority(0).sweep();
    expect(libvipsThreads().map((t) => t.nice)).toEqual(before);
  });
});
