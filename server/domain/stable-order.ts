/**
 * Positions 0…n−1 ordered by `keys` descending, ties in position order (a stable sort): the keys
 * sorted natively, then each position placed after the higher keys and the earlier positions of its
 * own key (no comparator call per pair). Keys must not be NaN.
 */
export function stableDescending(keys: Float64Array): Uint32Array {
  const n = keys.length;
  const sorted = keys.slice().sort();
  // first output position of each distinct value, highest value first
  const next = new Map<number, number>();
  let pos = 0;
  for (let i = n - 1; i >= 0;) {
    const v = sorted[i]!;
    const from = i;
    while (i >= 0 && sorted[i] === v) i--;
    next.set(v, pos);
    pos += from - i;
  }
  const order = new Uint32Array(n);
  for (let j = 0; j < n; j++) {
    const v = keys[j]!;
    const at = next.get(v)!;
    order[at] = j;
    next.set(v, at + 1);
  }
  return order;
}
