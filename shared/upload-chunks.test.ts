import { describe, expect, it } from 'vitest';
import { chunkCount, chunkRange, missingChunks } from './upload-chunks.ts';

describe('upload chunk plan', () => {
  it('cuts a file into full chunks and a remainder', () => {
    expect(chunkCount(1, 512)).toBe(1);
    expect(chunkCount(512, 512)).toBe(1);
    expect(chunkCount(513, 512)).toBe(2);
    expect(chunkRange(1300, 512, 0)).toEqual({ start: 0, end: 512 });
    expect(chunkRange(1300, 512, 2)).toEqual({ start: 1024, end: 1300 });
    expect(chunkRange(1024, 512, 1)).toEqual({ start: 512, end: 1024 });
  });
  it('refuses indexes outside the file', () => {
    expect(() => chunkRange(1300, 512, 3)).toThrow(RangeError);
    expect(() => chunkRange(1300, 512, -1)).toThrow(RangeError);
    expect(() => chunkRange(1300, 512, 0.5)).toThrow(RangeError);
  });
  it('lists missing indexes in order', () => {
    expect(missingChunks(5, [3, 0, 3])).toEqual([1, 2, 4]);
    expect(missingChunks(2, [0, 1])).toEqual([]);
  });
});
