import { describe, expect, it } from 'vitest';
import { ServiceError } from '../errors.ts';
import { isSharpTimeout, mapImageTimeout, timedSharp } from './image-timeout.ts';

/**
 * A pipeline that is slow on any machine: a Gaussian blur of σ 300 over 9 MP costs about 1,800 taps per
 * pixel in each pass, far beyond one second of work, so a 1 s limit stops it whatever the CPU.
 */
const slow = (limitS: number) =>
  timedSharp(limitS, undefined, { create: { width: 3000, height: 3000, channels: 3, background: '#808080' } })
    .blur(300)
    .raw()
    .toBuffer();

describe('time limit of sharp pipelines', () => {
  it('stops a pipeline past its limit and refuses it with conversion_failed naming the limit', async () => {
    const e = await mapImageTimeout(() => slow(1), 'args.data', 1).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ServiceError);
    expect((e as ServiceError).toPayload()).toMatchObject({
      code: 'conversion_failed',
      field: 'args.data',
      message: expect.stringContaining('longer than 1 s'),
      details: { limit: 'ATELIER_IMAGE_TIMEOUT_S', limit_s: 1 },
    });
    expect(isSharpTimeout((e as ServiceError).cause)).toBe(true);
  });

  it('passes other errors through unchanged', async () => {
    const bad = new Error('Input buffer contains unsupported image format');
    await expect(mapImageTimeout(() => Promise.reject(bad), 'args.data', 1)).rejects.toBe(bad);
  });
});
