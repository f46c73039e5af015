/**
 * Default bound of one process's in-memory vector partitions, bytes (1 GiB): about 13 partitions of
 * 100,000 vectors of 100 dimensions (≈ 77 MB each as `QuantisedIndex.bytes` counts them, 10,000: ≈ 9.5
 * MB); one partition of 100,000 × 1,536-d vectors (≈ 1.0 GB) alone.
 */
export const DEFAULT_PARTITION_BUDGET_BYTES = 1024 ** 3;

/** What the budget needs of a partition: its current size. */
export interface Sized {
  index: { readonly bytes: number };
}

interface Entry {
  map: PartitionMap<Sized>;
  key: string;
  bytes: number;
  used: number;
}

/**
 * A memory bound shared by every in-memory search partition of a process (the asset vector partitions
 * of db/sqlite/asset-vector-index.ts and the product partitions of db/sqlite/product-vector-index.ts, each held in a `PartitionMap`): when the partitions hold more than `maxBytes` together, the least recently used
 * ones are dropped from their maps (they load again from the database on their next use, as on their
 * first). The partition just used is never dropped, so one larger than the whole budget still serves
 * its searches (alone). Sizes are re-read at every use, so a partition that grew by replayed writes is
 * counted as it is now. Bookkeeping per use: a map lookup and a counter; an eviction scans the
 * partitions (it follows a load, which reads every row of a partition anyway).
 */
export class PartitionBudget {
  readonly maxBytes: number;
  private total = 0;
  private clock = 0;
  private readonly entries = new Set<Entry>();

  /** @param maxBytes bound of the partitions' bytes together (> 0) */
  constructor(maxBytes: number = DEFAULT_PARTITION_BUDGET_BYTES) {
    if (!(maxBytes > 0)) throw new Error(`partition budget must be positive bytes, got ${maxBytes}`);
    this.maxBytes = maxBytes;
  }

  /** Bytes the loaded partitions hold (as of their last use). */
  get bytes(): number {
    return this.total;
  }

  /** Loaded partitions. */
  get partitions(): number {
    return this.entries.size;
  }

  /** @internal a use of `entry` (new when `entry` is undefined) at `bytes`; evicts others beyond the bound. @returns the entry */
  use(map: PartitionMap<Sized>, key: string, bytes: number, entry: Entry | undefined): Entry {
    if (!entry) {
      entry = { map, key, bytes: 0, used: 0 };
      this.entries.add(entry);
    }
    this.total += bytes - entry.bytes;
    entry.bytes = bytes;
    entry.used = ++this.clock;
    while (this.total > this.maxBytes && this.entries.size > 1) {
      let lru: Entry | undefined;
      for (const e of this.entries) if (e !== entry && (!lru || e.used < lru.used)) lru = e;
      lru!.map.delete(lru!.key);
    }
    return entry;
  }

  /** @internal `entry` left its map. */
  release(entry: Entry): void {
    if (this.entries.delete(entry)) this.total -= entry.bytes;
  }
}

/**
 * The loaded partitions of one index by key, under a `PartitionBudget`: a `Map` whose `use` marks a
 * partition as just used, and whose `set`, `delete` and `clear` keep the budget's count (so code that
 * drops partitions as a plain `Map`, like db/sqlite/search-changes.ts `replayChanges`, stays correct). A
 * partition may be dropped by the budget whenever another one of any map is used or set.
 */
export class PartitionMap<P extends Sized> extends Map<string, P> {
  private readonly budget: PartitionBudget;
  private readonly meta = new Map<string, Entry>();

  constructor(budget: PartitionBudget) {
    super();
    this.budget = budget;
  }

  /** The partition of `key`, marked as just used (its size re-read; others may be evicted), or undefined. */
  use(key: string): P | undefined {
    const p = super.get(key);
    if (p) this.meta.set(key, this.budget.use(this, key, p.index.bytes, this.meta.get(key)));
    return p;
  }

  /** Add a partition as just used (others may be evicted). */
  override set(key: string, p: P): this {
    // (Map's constructor would call this before `budget` is set: a PartitionMap is only ever built empty)
    super.set(key, p);
    this.meta.set(key, this.budget.use(this, key, p.index.bytes, this.meta.get(key)));
    return this;
  }

  override delete(key: string): boolean {
    const e = this.meta.get(key);
    if (e) {
      this.meta.delete(key);
      this.budget.release(e);
    }
    return super.delete(key);
  }

  override clear(): void {
    for (const e of this.meta.values()) this.budget.release(e);
    this.meta.clear();
    super.clear();
  }
}
