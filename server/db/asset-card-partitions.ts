import type { Database } from 'better-sqlite3';
import type { Scope } from '../domain/scope.ts';
import { PartitionBudget, PartitionMap } from '../vector-scan/partition-budget.ts';
import { CARD_COLUMNS, cardOfValues, type AssetCard } from './asset-cards.ts';
import { replayChanges, type SearchChanges } from './search-changes.ts';

/** A partition is reloaded whole when more of its rows changed than this share (bulk imports). */
const RELOAD_SHARE = 0.25;
/**
 * Bytes counted per card besides its strings: the object (16 fields), its `Map` entry and the
 * thumbnail object, as V8 lays them out on 64-bit. Measured on 100,000 synthetic cards (119 characters
 * of text each): 41.0 MB of heap after GC, counted as 43.4 MB.
 */
const CARD_OVERHEAD_BYTES = 240;

/** Heap bytes of a string: header and characters (two bytes each once one is past Latin-1). */
function stringBytes(s: string | null): number {
  if (s === null) return 0;
  // eslint-disable-next-line no-control-regex
  return 16 + (/[^\u0000-\u00ff]/.test(s) ? 2 * s.length : s.length);
}

/** The cards of one workspace by seq, and the heap they take (an estimate, for the budget). */
class CardIndex {
  private readonly cards = new Map<number, AssetCard>();
  /** Low-cardinality values (kind, format, status, category…) held once per partition. */
  private readonly interned = new Map<string, string>();
  /** Estimated heap bytes of the cards. */
  bytes = 0;

  /** Cards held. */
  get size(): number {
    return this.cards.size;
  }

  /** The card of `seq`, undefined when the workspace holds no such asset. */
  get(seq: number): AssetCard | undefined {
    return this.cards.get(seq);
  }

  /** Add or replace the card of `card.seq` (the index takes the object: its repeated values are interned in place). */
  put(card: AssetCard): void {
    this.remove(card.seq);
    card.kind = this.intern(card.kind) as AssetCard['kind'];
    card.format = this.intern(card.format)!;
    card.enrichment_status = this.intern(card.enrichment_status) as AssetCard['enrichment_status'];
    card.purpose = this.intern(card.purpose);
    card.category = this.intern(card.category);
    card.subtype = this.intern(card.subtype);
    if (card.thumbnail) card.thumbnail.format = this.intern(card.thumbnail.format)!;
    this.cards.set(card.seq, card);
    this.bytes += CardIndex.bytesOf(card);
  }

  /** Drop the card of `seq` (nothing when absent). */
  remove(seq: number): void {
    const old = this.cards.get(seq);
    if (!old) return;
    this.cards.delete(seq);
    this.bytes -= CardIndex.bytesOf(old);
  }

  private intern(v: string | null): string | null {
    if (v === null) return null;
    const kept = this.interned.get(v);
    if (kept !== undefined) return kept;
    this.interned.set(v, v);
    return v;
  }

  /** The bytes a card is counted for (interned values not included: there are few of them). */
  private static bytesOf(c: AssetCard): number {
    return (
      CARD_OVERHEAD_BYTES +
      stringBytes(c.id) +
      stringBytes(c.key) +
      stringBytes(c.name) +
      stringBytes(c.alt_text) +
      stringBytes(c.tags) +
      stringBytes(c.auto_tags) +
      stringBytes(c.thumbnail?.key ?? null)
    );
  }
}

interface Partition {
  tenantId: string;
  workspaceId: string;
  index: CardIndex;
}

/**
 * The search result cards (db/asset-cards.ts) of the workspaces searched lately, held in memory so a
 * result page needs no row reads: 20 cards read from SQLite by rowid cost about 0.1 ms, the same work
 * as ranking the query (bench/vectors.bench.ts). A workspace's partition is loaded whole on its first
 * use (one walk of its rows, ~0.6 s at 100,000 assets; the start-up warm-up does it before serving)
 * and follows the `search_changes` log after that, as the vector partitions do (db/search-changes.ts
 * `replayChanges`: a changed seq is read again, a bulk change reloads the partition). Asset rows and
 * thumbnail renditions are logged (migrations 0046, 0055). Partitions count against `budget`, shared
 * with the process's vector partitions: the least recently used are dropped beyond it.
 */
export function createAssetCardPartitions(db: Database, changes: SearchChanges, budget: PartitionBudget) {
  const parts = new PartitionMap<Partition>(budget);
  let mark = changes.head();
  const s = {
    all: db.prepare(`SELECT ${CARD_COLUMNS} FROM assets a WHERE a.tenant_id = ? AND a.workspace_id = ?`).raw(),
    one: db.prepare(`SELECT ${CARD_COLUMNS} FROM assets a WHERE a.seq = ? AND a.tenant_id = ? AND a.workspace_id = ?`).raw(),
  };
  const sync = (head: number | undefined): void => {
    mark = replayChanges(changes, mark, 'asset', parts, {
      head,
      partOf: (p) => p.workspaceId,
      apply: (p, seq) => {
        const v = s.one.get(seq, p.tenantId, p.workspaceId) as unknown[] | undefined;
        if (v) p.index.put(cardOfValues(v));
        else p.index.remove(seq);
      },
      reloadShare: RELOAD_SHARE,
    });
  };
  const partition = (scope: Scope, head?: number): Partition => {
    sync(head);
    const key = `${scope.tenantId}|${scope.workspaceId}`;
    let p = parts.use(key);
    if (!p) {
      // sync() read the mark before these rows: a write committed in between is replayed again (idempotent)
      const index = new CardIndex();
      for (const v of s.all.iterate(scope.tenantId, scope.workspaceId) as Iterable<unknown[]>) index.put(cardOfValues(v));
      p = { tenantId: scope.tenantId, workspaceId: scope.workspaceId, index };
      parts.set(key, p);
    }
    return p;
  };

  return {
    /**
     * The cards of `seqs` in the workspace, in the order given (missing and foreign seqs dropped), as of
     * the change log's head; null inside a transaction of this connection (its uncommitted writes are
     * not in the log's replay yet: the caller reads the rows).
     * @param head the change-log head the caller read for this request (read here when absent)
     */
    cards(scope: Scope, seqs: number[], head?: number): AssetCard[] | null {
      if (db.inTransaction) return null;
      const { index } = partition(scope, head);
      const out: AssetCard[] = [];
      for (const seq of seqs) {
        const c = index.get(seq);
        if (c) out.push(c);
      }
      return out;
    },
    /** Load the workspace's partition now (the start-up warm-up). @returns cards held */
    warm: (scope: Scope): number => partition(scope).index.size,
    /** Partitions loaded (tests). */
    get loaded(): number {
      return parts.size;
    },
  };
}
export type AssetCardPartitions = ReturnType<typeof createAssetCardPartitions>;
