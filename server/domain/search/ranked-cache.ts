import { stableJson } from './cursor.ts';

/** Ranked passes kept per cache (a few agents paging a few queries each). */
const ENTRIES = 64;
/** A pass is reused for this long at most, even when nothing changed (ms). */
const TTL_MS = 10 * 60_000;

/**
 * One ranked pass per (query, cursor snapshot, change-log head): later pages of a result set read the
 * pass the first page made instead of ranking again (no k=500 re-run per page). The change-log head
 * (`search_changes`, migration 0046) is part of the key, so any write to the library or catalog — by
 * this process or another — makes the next page rank afresh, exactly as before. Least recently used
 * entries are evicted past `ENTRIES`.
 */
export class RankedCache<T> {
  private readonly entries = new Map<string, { at: number; value: T }>();

  /** The pass for `key` at `snapshot`/`head`, computed by `rank` when absent or stale. */
  async get(key: unknown, snapshot: number, head: number, rank: () => Promise<T>): Promise<T> {
    const k = `${stableJson(key)}|${snapshot}|${head}`;
    const hit = this.entries.get(k);
    const now = Date.now();
    if (hit && now - hit.at < TTL_MS) {
      this.entries.delete(k);
      this.entries.set(k, hit);
      return hit.value;
    }
    const value = await rank();
    this.put(key, snapshot, head, value);
    return value;
  }

  /** Drop every pass: the next page of any result set ranks afresh (bench/vectors.bench.ts times that). */
  clear(): void {
    this.entries.clear();
  }

  /** Store a pass just computed (a first page). */
  put(key: unknown, snapshot: number, head: number, value: T): void {
    const k = `${stableJson(key)}|${snapshot}|${head}`;
    this.entries.delete(k);
    this.entries.set(k, { at: Date.now(), value });
    while (this.entries.size > ENTRIES) this.entries.delete(this.entries.keys().next().value!);
  }
}

const caches = new WeakMap<object, RankedCache<unknown>>();
/** The cache bound to one database's query object (so two servers in one process never share passes). */
export function rankedCacheOf<T>(owner: object): RankedCache<T> {
  let c = caches.get(owner);
  if (!c) caches.set(owner, (c = new RankedCache<unknown>()));
  return c as RankedCache<T>;
}
