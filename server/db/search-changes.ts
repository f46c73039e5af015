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
 * embeddings and collection memberships, and by db/vectors.ts for asset vectors. Readers follow it
 * with a mark: `head()` is one index probe, `since(mark)` the rows after it. A mark older than the
 * oldest kept row (`gap`) means rows were pruned unseen: the reader must reload from scratch.
 */
export function createSearchChanges(db: Database) {
  const s = {
    head: db.prepare('SELECT coalesce(max(id), 0) AS id FROM search_changes'),
    oldest: db.prepare('SELECT coalesce(min(id), 0) AS id FROM search_changes'),
    since: db.prepare('SELECT id, kind, part, seq FROM search_changes WHERE id > ? ORDER BY id'),
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
    /** Log a change the triggers do not see (vec0 tables take no triggers). */
    log: (kind: SearchChange['kind'], part: string, seq: number): void => void s.log.run(kind, part, seq),
  };
}
export type SearchChanges = ReturnType<typeof createSearchChanges>;
