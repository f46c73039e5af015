import { describe, expect, it } from 'vitest';
import { backoffMs } from './queue.ts';

describe('job retry backoff', () => {
  it('grows ×4 from the base and caps at 5 min', () => {
    expect([1, 2, 3].map((n) => backoffMs(n))).toEqual([2000, 8000, 32000]);
    expect(backoffMs(2, 20)).toBe(80);
    expect(backoffMs(20)).toBe(300_000);
  });
});
