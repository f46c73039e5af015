import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../e2e/mcp/harness.ts';
import { threadsOfThisProcess } from '../../e2e/mcp/threads.ts';
import { videoPoster } from './video.ts';

/** nice values of this process's threads */
function niceValues(): number[] {
  return threadsOfThisProcess().map((t) => t.nice);
}

describe.runIf(process.platform === 'linux')('videoPoster', () => {
  it('decodes the poster on a worker thread at the given nice value and leaves the other threads alone', async () => {
    const webm = fs.readFileSync(path.join(REPO_ROOT, 'e2e/fixtures/canvas-clip.webm'));
    const before = niceValues().filter((n) => n === 7).length;
    let seen = 0;
    // the worker lives from its start to the decoded frame (instantiating ffmpeg.wasm alone takes tens of ms)
    const poll = setInterval(() => (seen = Math.max(seen, niceValues().filter((n) => n === 7).length)), 2);
    const png = await videoPoster(webm, 2, 7);
    clearInterval(poll);
    expect(png?.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(before).toBe(0);
    expect(seen).toBe(1);
    expect(niceValues().filter((n) => n === 7)).toHaveLength(0); // the worker is gone
  });
});
