import type { Database, Statement } from 'better-sqlite3';
import { compileFtsMatches, intersect, type FtsMatches, type PhraseList } from '../domain/fts-bm25.ts';
import { foldForward, forwardPhraseList, patchForward, type Forward } from './fts-forward.ts';
import { foldOverlay, phraseList, prefixList, type Block, type Overlay } from './fts-postings-block.ts';
import { readFtsTable } from './fts-postings-read.ts';
import { createFtsTokenizer } from './fts-tokenizer.ts';
import type { SearchChange, SearchChanges } from './search-changes.ts';

/** Limits of the in-memory copy of one FTS5 table. */
export interface FtsPostingsLimits {
  /** changed rows kept beside the copy before they are folded into it; more changed at once and the table is read again */
  overlay: number;
  /** token instances held at most; a larger table is not held (FTS5 answers every query) */
  instances: number;
}
/**
 * 1,024 changed rows; 8,000,000 token instances (held in 4 + 2 · columns bytes per term and row, and 4
 * bytes per instance for the token order: under 130 MB for assets, 180 MB for products at the limit).
 */
export const FTS_POSTINGS_LIMITS: FtsPostingsLimits = { overlay: 1024, instances: 8_000_000 };
/** No table held: FTS5 answers every query. */
export const FTS_POSTINGS_OFF: FtsPostingsLimits = { overlay: 0, instances: 0 };

/** The FTS5 table held in memory: its name, `search_changes` kind, columns and bm25 column weights. */
export interface FtsPostingsTable {
  fts: string;
  kind: SearchChange['kind'];
  columns: readonly string[];
  weights: readonly number[];
}

export type { FtsMatches };

/** The table as it stood when the view was taken: one request's answers come from one state. */
export interface FtsPostingsView {
  /** the matches of an expression, or null when FTS5 must answer it (see createFtsPostings) */
  matches(match: string): FtsMatches | null;
}

/** Bytes of phrase lists and compiled matches kept per state; past it both caches start empty. */
const CACHE_BYTES = 32 * 2 ** 20;
/**
 * A prefix phrase whose terms hold more postings than this together is left to FTS5 (its prefix
 * indexes answer a short prefix without summing thousands of lists).
 */
const PREFIX_POSTINGS = 200_000;

interface State {
  /** `search_changes` id the state is current with */
  mark: number;
  block: Block;
  /** tokens per rowid at the read (0 for no row) and whether the row existed */
  len: Int32Array;
  exists: Uint8Array;
  rows: number;
  tokens: number;
  overlay: Overlay;
  /** each row's tokens in order (phrases of several tokens), with the overlay's rows patched in; null: FTS5 answers those phrases */
  forward: Forward | null;
  /** per phrase (term and column), its rows and weighted frequency, for this state */
  lists: Map<string, PhraseList>;
  /** compiled expressions for this state (null: outside what the memory copy evaluates) */
  compiled: Map<string, FtsMatches | null>;
  /** bytes of the rows held by `lists` and `compiled` (both are emptied past CACHE_BYTES) */
  cached: number;
}

/**
 * One FTS5 table held in memory as postings (term → rows, with per-column instance counts) and row
 * lengths, answering the lexical planner's expressions (domain/fts-expression.ts) with the same matches
 * and the same BM25 values as FTS5's `bm25()` without a row lookup per match: FTS5's bm25 reads each
 * matching row's size from `%_docsize` and its instances from the position lists, about 2.6 µs per
 * match on a 2-core machine, where this is a few array reads.
 *
 * BM25 and matching: domain/fts-bm25.ts (FTS5's formula, phrase by phrase; a parity test compares).
 *
 * Held: phrases (as FTS5's tokenizer makes them, db/fts-tokenizer.ts; one of several tokens is checked
 * against each candidate row's tokens in order, db/fts-forward.ts), prefix phrases of one token (every
 * term starting with it, up to PREFIX_POSTINGS postings), AND, OR and a column filter. Phrases of no
 * token, prefix phrases of several, longer prefix lists and expressions outside the planner's subset
 * get null from `matches`: the caller asks FTS5. So does every call inside an open transaction.
 *
 * The copy is read once (one pass over the table's fts5vocab `instance` table) on first use; afterwards
 * the rows changed since, as logged in `search_changes` of the table's kind, are tokenized again and
 * kept beside it (an overlay that replaces them), folded into the copy past `limits.overlay` rows. When
 * more rows than that changed at once, or the log was pruned unseen, the table is read again. Every call
 * first replays the log from its mark, so no answer comes from a stale copy.
 */
export function createFtsPostings(
  db: Database,
  changes: SearchChanges,
  t: FtsPostingsTable,
  limits: FtsPostingsLimits = FTS_POSTINGS_LIMITS,
) {
  if (t.columns.length > 16) throw new Error(`fts-postings: ${t.fts} has more than 16 columns`);
  // a phrase is in a row where its weighted frequency is above 0
  if (t.weights.length !== t.columns.length || t.weights.some((w) => !(w > 0)))
    throw new Error(`fts-postings: ${t.fts} needs a weight above 0 per column`);
  const ncols = t.columns.length;
  const stmts = new Map<string, Statement>();
  const prep = (sql: string): Statement => {
    let s = stmts.get(sql);
    if (!s) stmts.set(sql, (s = db.prepare(sql)));
    return s;
  };
  const tokenizer = createFtsTokenizer(db, t.fts);
  const instanceTable = `fts_postings_${t.fts}_instance`;
  const rowTable = `fts_postings_${t.fts}_row`;
  let instanceMade = false;
  /** Phrase texts and their FTS5 tokens (bounded: cleared past 4,096). */
  const phraseTokens = new Map<string, string[]>();
  const tokensOf = (text: string): string[] => {
    let toks = phraseTokens.get(text);
    if (!toks) {
      toks = tokenizer.tokens(text);
      if (phraseTokens.size >= 4096) phraseTokens.clear();
      phraseTokens.set(text, toks);
    }
    return toks;
  };
  /** Set once a read found the table larger than `limits.instances`: FTS5 answers for the process's life. */
  let tooLarge = limits.instances <= 0;
  /** The log head at which reading the table failed: FTS5 answers until the log moves on. */
  let failedAt = -1;

  /** Read the whole table in one read transaction (a consistent snapshot: db/fts-postings-read.ts), or null past the instance limit. */
  const load = (): State | null =>
    db.transaction((): State | null => {
      if (!instanceMade) {
        db.exec(
          `CREATE VIRTUAL TABLE IF NOT EXISTS temp.${instanceTable} USING fts5vocab(main, ${t.fts}, 'instance');` +
            `CREATE VIRTUAL TABLE IF NOT EXISTS temp.${rowTable} USING fts5vocab(main, ${t.fts}, 'row');`,
        );
        instanceMade = true;
      }
      const mark = changes.head();
      const built = readFtsTable(prep, t, { instance: instanceTable, row: rowTable }, limits.instances);
      if (!built) return null;
      return {
        ...built,
        mark,
        overlay: new Map(),
        lists: new Map(),
        compiled: new Map(),
        cached: 0,
      };
    })();

  /** Tokenize rows again and put them in the overlay. */
  const replay = (s: State, seqs: number[]): void => {
    const fresh = new Map<number, { len: number; terms: Map<string, Uint32Array> }>();
    const instances = tokenizer.instancesOf(seqs);
    for (const [term, doc, col] of instances) {
      let r = fresh.get(doc);
      if (!r) fresh.set(doc, (r = { len: 0, terms: new Map() }));
      let c = r.terms.get(term);
      if (!c) r.terms.set(term, (c = new Uint32Array(ncols)));
      c[col]!++;
      r.len++;
    }
    // a row with no token at all is still a row: ask the table which of the others exist
    const present = new Set(
      prep(`SELECT id FROM ${t.fts}_docsize WHERE id IN (SELECT value FROM json_each(?))`).pluck().all(JSON.stringify(seqs)) as number[],
    );
    for (const seq of seqs) s.overlay.set(seq, present.has(seq) ? (fresh.get(seq) ?? { len: 0, terms: new Map() }) : null);
    if (s.forward) patchForward(s.forward, seqs, present, instances);
  };

  /**
   * Fold the overlay into the block (no SQL: the rows were tokenized when replayed): each term's postings
   * without the overlaid rows, merged in rowid order with the overlay's; terms new to the table appended.
   */
  const merge = (s: State): void => {
    const { rows, tokens } = totals(s);
    s.block = foldOverlay(s.block, s.overlay, ncols);
    if (s.forward) s.forward = foldForward(s.forward);
    let top = s.len.length - 1;
    for (const seq of s.overlay.keys()) top = Math.max(top, seq);
    if (top >= s.len.length) {
      const len = new Int32Array(top + 1);
      len.set(s.len);
      const exists = new Uint8Array(top + 1);
      exists.set(s.exists);
      s.len = len;
      s.exists = exists;
    }
    for (const [seq, r] of s.overlay) {
      s.len[seq] = r?.len ?? 0;
      s.exists[seq] = r ? 1 : 0;
    }
    s.rows = rows;
    s.tokens = tokens;
    s.overlay = new Map();
  };

  let state: State | null = null;
  /**
   * The copy brought up to the log's head (`given`: as the caller read it for this request; one older
   * than the copy's mark leaves the copy as it is), or null when FTS5 must answer.
   */
  const current = (given?: number): State | null => {
    if (tooLarge || db.inTransaction) return null;
    const head = given ?? changes.head();
    if (state && state.mark >= head) return state;
    if (state && !changes.gap(state.mark)) {
      const seqs = changes.seqsSince(state.mark, t.kind, limits.overlay + 1);
      if (seqs.length <= limits.overlay) {
        replay(state, seqs);
        if (state.overlay.size > limits.overlay) merge(state);
        state.mark = head;
        state.lists = new Map();
        state.compiled = new Map();
        state.cached = 0;
        return state;
      }
    }
    if (failedAt === head) return null;
    try {
      state = load();
    } catch {
      // a table this copy cannot read (no %_docsize: columnsize=0, an unexpected fts5vocab shape) still
      // answers through FTS5: search must not fail because its faster path did
      state = null;
      failedAt = head;
      return null;
    }
    if (!state) tooLarge = true;
    return state;
  };

  /** Rows and tokens of the table now (the read, less the overlaid rows as read, plus the overlay). */
  const totals = (s: State): { rows: number; tokens: number } => {
    let rows = s.rows,
      tokens = s.tokens;
    for (const [seq, r] of s.overlay) {
      if (seq < s.exists.length && s.exists[seq]) {
        rows--;
        tokens -= s.len[seq]!;
      }
      if (r) {
        rows++;
        tokens += r.len;
      }
    }
    return { rows, tokens };
  };

  /** Account for `bytes` more in the state's caches, emptying both first when they would pass CACHE_BYTES. */
  const keep = (s: State, bytes: number): void => {
    if (s.cached + bytes > CACHE_BYTES) {
      s.lists.clear();
      s.compiled.clear();
      s.cached = 0;
    }
    if (Number.isFinite(bytes)) s.cached += bytes;
  };

  /** The rows holding `term` (in column `col`, or any when −1) and their weighted frequency, now (kept per state). */
  const listOf = (s: State, term: string, col: number): PhraseList => {
    const key = `${col}|${term}`;
    let list = s.lists.get(key);
    if (!list) {
      list = phraseList(s.block, s.overlay, t.weights, term, col);
      keep(s, list.docs.byteLength + list.f.byteLength);
      s.lists.set(key, list);
    }
    return list;
  };

  /** The rows holding a term starting with `prefix`, now (kept per state); null past PREFIX_POSTINGS. */
  const prefixListOf = (s: State, prefix: string, col: number): PhraseList | null => {
    const key = `${col}|${prefix}*`;
    let list = s.lists.get(key);
    if (!list) {
      const made = prefixList(s.block, s.overlay, t.weights, prefix, col, PREFIX_POSTINGS);
      if (!made) return null;
      keep(s, made.docs.byteLength + made.f.byteLength);
      s.lists.set(key, (list = made));
    }
    return list;
  };

  /**
   * The rows holding the phrase of several tokens `terms` (in column `col`, or any when −1), now (kept
   * per state): the rows holding all its terms, each checked for them in order; null without a forward copy.
   */
  const phraseListOf = (s: State, terms: readonly string[], col: number): PhraseList | null => {
    const forward = s.forward;
    if (!forward) return null;
    const key = `${col}|"${terms.join(' ')}"`;
    let list = s.lists.get(key);
    if (!list) {
      let candidates: Int32Array | null = null;
      for (const term of terms) {
        const docs = listOf(s, term, col).docs;
        candidates = candidates ? intersect(candidates, docs) : docs;
      }
      list = forwardPhraseList(forward, t.weights, terms, col, candidates!);
      keep(s, list.docs.byteLength + list.f.byteLength);
      s.lists.set(key, list);
    }
    return list;
  };

  /** An expression's matches in the state (domain/fts-bm25.ts), or null when FTS5 must answer it. */
  const compile = (s: State, match: string): FtsMatches | null => {
    const { rows, tokens } = totals(s);
    const r = compileFtsMatches(match, {
      columns: t.columns,
      tokenize: tokensOf,
      list: (term, col) => listOf(s, term, col),
      prefixList: (prefix, col) => prefixListOf(s, prefix, col),
      phrase: (terms, col) => phraseListOf(s, terms, col),
      rows,
      tokens,
      // (an overlay is empty between writes: no lookup per row then)
      lenOf: (d) => (s.overlay.size > 0 && s.overlay.has(d) ? (s.overlay.get(d)?.len ?? 0) : d < s.len.length ? s.len[d]! : 0),
    });
    if (!r) return null;
    keep(s, r.bytes);
    return r.matches;
  };

  const matchesIn = (s: State, match: string): FtsMatches | null => {
    let m = s.compiled.get(match);
    if (m === undefined) {
      m = compile(s, match);
      if (s.compiled.size >= 256) keep(s, Infinity);
      s.compiled.set(match, m);
    }
    return m;
  };

  return {
    /**
     * The matches of an FTS5 expression of the planner's subset in the whole table, current with every
     * committed write; null when FTS5 must answer (see the module note).
     */
    matches(match: string): FtsMatches | null {
      const s = current();
      return s ? matchesIn(s, match) : null;
    },
    /**
     * The table as it stands now, for the calls of one request (the log is read once, not per call);
     * null when FTS5 must answer. The view answers as of when it was taken until a later call brings
     * the copy up to date, and from the updated copy after that (a state is updated in place).
     * @param head the change-log head the caller read for this request (read here when absent)
     */
    view(head?: number): FtsPostingsView | null {
      const s = current(head);
      if (!s) return null;
      const mark = s.mark;
      // a later replay changes the state in place: past it, the view asks the state brought up to date
      return { matches: (match) => (s.mark === mark && !db.inTransaction ? matchesIn(s, match) : this.matches(match)) };
    },
  };
}
export type FtsPostings = ReturnType<typeof createFtsPostings>;
