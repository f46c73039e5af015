/**
 * Positions 0…n−1 ordered by `keys` descending, ties in position order (a stable sort): the keys
 * sorted natively (ascending), then each position placed by a binary search for its key's run, after
 * the earlier positions of the same key (no comparator call per pair, no hashing); keys already
 * non-increasing are returned in place. Keys must not be NaN; −0 and 0 are one key.
 */
export function stableDescending(keys: Float64Array): Uint32Array {
  const n = keys.length;
  // already in order (fusion of a lexical list alone keeps the planner's order): nothing to sort
  let ordered = true;
  for (let j = 1; j < n && ordered; j++) ordered = keys[j - 1]! >= keys[j]!;
  const order = new Uint32Array(n);
  if (ordered) {
    for (let j = 0; j < n; j++) order[j] = j;
    return order;
  }
  const sorted = keys.slice().sort();
  // positions already placed in each run, by the run's first output position
  const placed = new Uint32Array(n);
  for (let j = 0; j < n; j++) {
    const v = keys[j]!;
    // the run of v in `sorted` ends at the first element greater than v; descending, it starts at n − end
    let lo = 0,
      hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sorted[mid]! <= v) lo = mid + 1;
      else hi = mid;
    }
    const first = n - lo;
    order[first + placed[first]!++] = j;
  }
  return order;
}
