import type { Database, Statement } from 'better-sqlite3';
import { createFtsTokenizer } from './fts-tokenizer.ts';
import type { SearchChange, SearchChanges } from './search-changes.ts';

/** Limits of the incremental state between two reads of a whole vocabulary. */
export interface VocabularyLimits {
  /** rows changed since the last read whose terms are kept; past it the vocabulary is read again */
  rows: number;
  /**
   * rows that were in the index at the last read and changed since; past it the vocabulary is read
   * again (each may have lost any of its terms, so terms with at most this many documents are uncertain)
   */
  old: number;
}
const LIMITS: VocabularyLimits = { rows: 1024, old: 256 };

/** The state behind `known`: the vocabulary as read once, and the rows changed since, with their terms now. */
interface Loaded {
  /** `search_changes` id the state is current with */
  mark: number;
  /** document count per term at the read */
  docs: Map<string, number>;
  /** highest FTS5 rowid at the read: a changed row above it was not in the index then */
  loadMax: number;
  /** rows changed since the read, with their current terms ([] = row gone) */
  rows: Map<number, string[]>;
  /** per term, how many rows of `rows` hold it */
  held: Map<string, number>;
  /** rows of `rows` with rowid ≤ loadMax */
  old: number;
}

/**
 * Membership of Porter stems in one FTS5 table's vocabulary, answered in memory. The vocabulary is read
 * once (one scan of its fts5vocab `row` table: term and document count); afterwards every row changed
 * since, as logged in `search_changes` of `kind` (every write to the FTS5 tables goes with a write of
 * its content row, which the log's triggers record: migration 0046), is tokenized again with the
 * table's own tokenizer (a contentless FTS5 table in the connection's temp schema, read through its
 * fts5vocab `instance` table) and kept with its current terms. A term is then held when a changed row
 * holds it, or when it had more documents at the read than rows changed since (each changed row could
 * have dropped it once); a term with fewer documents is looked up in the index (rare: only after rows
 * that were already indexed changed). No term is ever answered from a stale state: each call first
 * replays the log from its mark. Past `limits` the vocabulary is read again.
 * Inside an open transaction (which may roll back its logged changes) the index is asked directly.
 */
export function createFtsVocabulary(
  db: Database,
  changes: SearchChanges,
  t: { fts: string; vocab: string; kind: SearchChange['kind'] },
  limits: VocabularyLimits = LIMITS,
) {
  const stmts = new Map<string, Statement>();
  const prep = (sql: string): Statement => {
    let s = stmts.get(sql);
    if (!s) stmts.set(sql, (s = db.prepare(sql)));
    return s;
  };
  const probe = (stems: string[]): string[] =>
    prep(`SELECT term FROM ${t.vocab} WHERE term IN (SELECT value FROM json_each(?))`).pluck().all(JSON.stringify(stems)) as string[];

  const tokenizer = createFtsTokenizer(db, t.fts);
  /** The current terms of rows of `t.fts` (rows no longer there are absent). */
  const termsOf = (seqs: number[]): Map<number, string[]> => {
    const out = new Map<number, Set<string>>();
    for (const [term, doc] of tokenizer.instancesOf(seqs)) {
      let ts = out.get(doc);
      if (!ts) out.set(doc, (ts = new Set()));
      ts.add(term);
    }
    return new Map([...out].map(([doc, ts]) => [doc, [...ts]]));
  };

  const load = (mark: number): Loaded => ({
    mark,
    docs: new Map(prep(`SELECT term, doc FROM ${t.vocab}`).raw().all() as [string, number][]),
    loadMax: prep(`SELECT coalesce(max(rowid), 0) FROM ${t.fts}`).pluck().get() as number,
    rows: new Map(),
    held: new Map(),
    old: 0,
  });
  const replay = (v: Loaded, seqs: number[]): void => {
    const now = termsOf(seqs);
    for (const seq of seqs) {
      const before = v.rows.get(seq);
      if (before) {
        for (const term of before) {
          const n = v.held.get(term)! - 1;
          if (n === 0) v.held.delete(term);
          else v.held.set(term, n);
        }
      } else if (seq <= v.loadMax) v.old++;
      const terms = now.get(seq) ?? [];
      v.rows.set(seq, terms);
      for (const term of terms) v.held.set(term, (v.held.get(term) ?? 0) + 1);
    }
  };

  let state: Loaded | null = null;
  /**
   * The state brought up to the log's head (`given`: as the caller read it for this request; one older
   * than the state's mark leaves it as it is): replayed, or read again past the limits or a pruned log.
   */
  const current = (given?: number): Loaded => {
    const head = given ?? changes.head();
    if (state && state.mark >= head) return state;
    if (state && !changes.gap(state.mark)) {
      const seqs = changes.seqsSince(state.mark, t.kind, limits.rows + 1);
      if (state.rows.size + seqs.length <= limits.rows) {
        replay(state, seqs);
        state.mark = head;
        if (state.old <= limits.old) return state;
      }
    }
    return (state = load(head));
  };

  return {
    /** Load the vocabulary now (what the first `known` would do), so no query waits for it. */
    warm(): void {
      if (!db.inTransaction) current();
    },
    /**
     * Which of `stems` the index holds now (each answered as the fts5vocab table would).
     * @param head the change-log head the caller read for this request (read here when absent)
     */
    known(stems: string[], head?: number): Set<string> {
      if (stems.length === 0) return new Set();
      if (db.inTransaction) return new Set(probe(stems));
      const v = current(head);
      const out = new Set<string>();
      const unsure: string[] = [];
      for (const s of stems) {
        if (v.held.has(s)) out.add(s);
        else {
          const d = v.docs.get(s) ?? 0;
          if (d > v.old) out.add(s);
          else if (d > 0) unsure.push(s);
        }
      }
      if (unsure.length > 0) for (const s of probe(unsure)) out.add(s);
      return out;
    },
  };
}
export type FtsVocabulary = ReturnType<typeof createFtsVocabulary>;
