import type { Database } from 'better-sqlite3';

/** One logged change: which asset (kind 'asset', part = workspace id) or product (part = store id). */
export interface SearchChange {
  id: number;
  kind: 'asset' | 'product';
  part: string;
  seq: number;
}

/**
 * The `search_changes` log (migration 0046): rows written by triggers on assets, products, product
 * embeddings and collection memberships, and by db/sqlite/vector-store.ts for asset vectors. Readers follow it
 * with a mark: `head()` is one index probe, `since(mark)` the rows after it. A mark older than the
 * oldest kept row (`gap`) means rows were pruned unseen: the reader must reload from scratch.
 * A row of kind 'asset' with part '' and seq −(space id) (`logSpace`) is no row change: it marks a
 * vector space whose table was dropped or made anew (retired, revived), so every in-memory partition
 * of that space is stale (`replayChanges` `stale`); readers that re-read rows by seq find no row −id.
 * A row with seq 0 is no row change either: a synonym rule of the part changed (migration 0056); it
 * only moves the head (readers that re-read row 0 find none).
 */
export function createSearchChanges(db: Database) {
  const s = {
    head: db.prepare('SELECT coalesce(max(id), 0) AS id FROM search_changes'),
    oldest: db.prepare('SELECT coalesce(min(id), 0) AS id FROM search_changes'),
    since: db.prepare('SELECT id, kind, part, seq FROM search_changes WHERE id > ? ORDER BY id'),
    seqsSince: db.prepare('SELECT DISTINCT seq FROM search_changes WHERE id > ? AND kind = ? AND seq > 0 LIMIT ?').pluck(),
    log: db.prepare('INSERT INTO search_changes (kind, part, seq) VALUES (?, ?, ?)'),
  };
  return {
    /** Highest change id (0 when none). */
    head: (): number => (s.head.get() as { id: number }).id,
    /** Whether changes after `mark` were pruned before this reader saw them. */
    gap: (mark: number): boolean => {
      const oldest = (s.oldest.get() as { id: number }).id;
      return oldest > mark + 1;
    },
    /** Changes after `mark`, oldest first. */
    since: (mark: number): SearchChange[] => s.since.all(mark) as SearchChange[],
    /** The distinct row seqs (> 0: no space or rule marks) of `kind` changed after `mark` (every part), at most `limit` of them. */
    seqsSince: (mark: number, kind: SearchChange['kind'], limit: number): number[] => s.seqsSince.all(mark, kind, limit) as number[],
    /** Log a change the triggers do not see: asset vectors (vector-store.ts), whose vec0 tables take no triggers. */
    log: (kind: SearchChange['kind'], part: string, seq: number): void => void s.log.run(kind, part, seq),
    /** Log that a vector space's table was dropped or made anew: every process drops its partitions of the space. */
    logSpace: (spaceId: number): void => void s.log.run('asset', '', -spaceId),
  };
}
export type SearchChanges = ReturnType<typeof createSearchChanges>;

/**
 * Bring in-memory partitions (the vector indexes) from `mark` up to the head of the log: each loaded
 * partition gets `apply(partition, seq)` for every changed seq of its part (of `kind`). When rows were
 * pruned unseen, or nothing is loaded, every partition is dropped (they load again on demand); a partition
 * with more than 64 changed rows and more than `reloadShare` of its size (a bulk import) is dropped too.
 * A space mark (`logSpace`) calls `stale(spaceId)` first (the owner drops that space's partitions).
 * @param o.head the head as the caller read it for this request (read here when absent); one older than
 *   `mark` (another caller went further) leaves the partitions as they are
 * @returns the new mark (the head read at the start: a write committed meanwhile is replayed again, idempotently)
 */
export function replayChanges<P extends { index: { size: number } }>(
  changes: SearchChanges,
  mark: number,
  kind: SearchChange['kind'],
  parts: Map<string, P>,
  o: {
    partOf: (p: P) => string;
    apply: (p: P, seq: number) => void;
    reloadShare: number;
    stale?: (spaceId: number) => void;
    head?: number | undefined;
  },
): number {
  const head = o.head ?? changes.head();
  if (head <= mark) return mark;
  if (parts.size === 0 || changes.gap(mark)) {
    parts.clear();
    return head;
  }
  const byPart = new Map<string, Set<number>>();
  for (const c of changes.since(mark)) {
    if (c.kind !== kind) continue;
    if (c.seq < 0) {
      o.stale?.(-c.seq);
      continue;
    }
    if (c.seq === 0) continue;
    let set = byPart.get(c.part);
    if (!set) byPart.set(c.part, (set = new Set()));
    set.add(c.seq);
  }
  for (const [key, p] of parts) {
    const seqs = byPart.get(o.partOf(p));
    if (!seqs) continue;
    if (seqs.size > 64 && seqs.size > p.index.size * o.reloadShare) {
      parts.delete(key);
      continue;
    }
    for (const seq of seqs) o.apply(p, seq);
  }
  return head;
}
