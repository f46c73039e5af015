/**
 * Chunk arithmetic of the upload channel, shared by the server (validation) and the upload panel
 * (slicing): a file of `sizeBytes` is cut into `chunkCount` chunks of `chunkSizeBytes`, the last one
 * holding the remainder. Chunk `i` covers bytes `[i × chunkSizeBytes, min(size, (i + 1) × chunkSizeBytes))`.
 */

/** Number of chunks of a file (≥ 1 for a non-empty file). */
export function chunkCount(sizeBytes: number, chunkSizeBytes: number): number {
  return Math.max(1, Math.ceil(sizeBytes / chunkSizeBytes));
}

/** Byte range `[start, end)` of chunk `index`. @throws RangeError when index is outside the file */
export function chunkRange(sizeBytes: number, chunkSizeBytes: number, index: number): { start: number; end: number } {
  const count = chunkCount(sizeBytes, chunkSizeBytes);
  if (!Number.isInteger(index) || index < 0 || index >= count) throw new RangeError(`chunk index ${index} is outside 0–${count - 1}`);
  const start = index * chunkSizeBytes;
  return { start, end: Math.min(sizeBytes, start + chunkSizeBytes) };
}

/** Indexes not yet received, ascending. */
export function missingChunks(count: number, received: Iterable<number>): number[] {
  const have = new Set(received);
  const out: number[] = [];
  for (let i = 0; i < count; i++) if (!have.has(i)) out.push(i);
  return out;
}
