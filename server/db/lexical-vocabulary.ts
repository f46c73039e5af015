import type { Database, Statement } from 'better-sqlite3';
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

  /** The temp tables that tokenize rows as `t.fts` does (created on first use), and their column count. */
  let tokenizer: { table: string; instance: string; columns: number } | null = null;
  const tokenizerOf = (): { table: string; instance: string; columns: number } => {
    if (tokenizer) return tokenizer;
    const sql =
      (db.prepare("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?").pluck().get(t.fts) as string | undefined) ?? '';
    // the tokenize option as declared (quoted string or bare word); none = FTS5's default tokenizer
    const tokenize = /\btokenize\s*=\s*('(?:[^']|'')*'|"(?:[^"]|"")*"|[^\s,)]+)/i.exec(sql)?.[1];
    const columns = (db.prepare(`SELECT count(*) FROM pragma_table_info('${t.fts}')`).pluck().get() as number) || 1;
    const table = `lexical_tokens_${t.fts}`;
    const cols = Array.from({ length: columns }, (_, i) => `c${i}`).join(', ');
    db.exec(
      `CREATE VIRTUAL TABLE IF NOT EXISTS temp.${table} USING fts5(${cols}, content=''${tokenize ? `, tokenize=${tokenize}` : ''});` +
        `CREATE VIRTUAL TABLE IF NOT EXISTS temp.${table}_instance USING fts5vocab(temp, ${table}, 'instance');`,
    );
    return (tokenizer = { table, instance: `${table}_instance`, columns });
  };
  /** The current terms of rows of `t.fts` (rows no longer there are absent). */
  const termsOf = (seqs: number[]): Map<number, string[]> => {
    const k = tokenizerOf();
    const cols = Array.from({ length: k.columns }, (_, i) => `c${i}`).join(', ');
    prep(
      `INSERT INTO temp.${k.table} (rowid, ${cols}) SELECT rowid, * FROM main.${t.fts} WHERE rowid IN (SELECT value FROM json_each(?))`,
    ).run(JSON.stringify(seqs));
    const out = new Map<number, string[]>();
    try {
      for (const [term, doc] of prep(`SELECT DISTINCT term, doc FROM temp.${k.instance}`).raw().all() as [string, number][]) {
        let ts = out.get(doc);
        if (!ts) out.set(doc, (ts = []));
        ts.push(term);
      }
    } finally {
      prep(`INSERT INTO temp.${k.table} (${k.table}) VALUES ('delete-all')`).run();
    }
    return out;
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
  /** The state brought up to the log's head: replayed, or read again past the limits or a pruned log. */
  const current = (): Loaded => {
    const head = changes.head();
    if (state && state.mark === head) return state;
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
    /** Which of `stems` the index holds now (each answered as the fts5vocab table would). */
    known(stems: string[]): Set<string> {
      if (stems.length === 0) return new Set();
      if (db.inTransaction) return new Set(probe(stems));
      const v = current();
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
