import type { Statement } from 'better-sqlite3';
import { forwardBuilder, type Forward } from './fts-forward.ts';
import { blockBuilder, type Block } from './fts-postings-block.ts';
import type { FtsPostingsTable } from './fts-postings.ts';

/** One FTS5 table as read: its postings block, row lengths and existence, and each row's tokens in order. */
export interface FtsTableRead {
  block: Block;
  /** tokens per rowid (0 for no row) */
  len: Int32Array;
  exists: Uint8Array;
  rows: number;
  tokens: number;
  /** null when a position or rowid is past what the forward copy holds (phrases of several tokens go to FTS5) */
  forward: Forward | null;
}

/**
 * Reads the whole of `t` through its fts5vocab tables (`vocabTables.instance`, `vocabTables.row`, made by the
 * caller in `temp`), or null past `maxInstances` token instances. Run it inside a read transaction: the reads must
 * see one state. The instances are read as numbers alone ((rowid · 16 + column) · 65,536 + position), cut
 * into terms by the `cnt` of the `row` table, which lists the terms in the same index order: about a
 * third of the time of reading each instance's term as a string. Should the two ever disagree (a total
 * that differs, a rowid going back within a term), the instances are read again with their terms.
 * fts5vocab: https://www.sqlite.org/fts5.html#the_fts5vocab_virtual_table_module
 */
export function readFtsTable(
  prep: (sql: string) => Statement,
  t: FtsPostingsTable,
  vocabTables: { instance: string; row: string },
  maxInstances: number,
): FtsTableRead | null {
  const ncols = t.columns.length;
  const instanceTable = vocabTables.instance;
  const rowTable = vocabTables.row;
  const maxRow = prep(`SELECT coalesce(max(id), 0) FROM ${t.fts}_docsize`).pluck().get() as number;
  const exists = new Uint8Array(maxRow + 1);
  let rows = 0;
  for (const id of prep(`SELECT id FROM ${t.fts}_docsize`).pluck().iterate() as IterableIterator<number>) {
    exists[id] = 1;
    rows++;
  }
  const vocab = prep(`SELECT term, cnt FROM temp.${rowTable}`).raw().all() as [string, number][];
  let total = 0;
  for (const v of vocab) total += v[1];
  if (total > maxInstances) return null;
  const colOf = `CASE col ${t.columns.map((c, i) => `WHEN '${c}' THEN ${i}`).join(' ')} END`;
  // rowid · 2^20 stays an exact double below 2^53; the position is capped in 16 bits (the forward copy declines past it)
  const packed = `(doc * 16 + ${colOf}) * 65536 + min("offset", 65535)`;
  type Built = { block: Block; len: Int32Array; tokens: number; forward: Forward | null };
  /** one instance (packed) of term number `ti` into both copies; false when the block cannot hold it */
  const put = (b: ReturnType<typeof blockBuilder>, f: ReturnType<typeof forwardBuilder> | null, ti: number, x: number): boolean => {
    const pos = x % 65536;
    const rc = (x - pos) / 65536;
    const d = Math.floor(rc / 16);
    f?.add(ti, d, rc % 16, pos);
    return b.add(d, rc % 16);
  };
  const forwardOf = (): ReturnType<typeof forwardBuilder> | null => (maxRow < 2 ** 31 ? forwardBuilder(ncols, maxRow, total) : null);
  const fast = (): Built | null => {
    const b = blockBuilder(ncols, maxRow);
    const f = forwardOf();
    let ti = -1;
    let left = 0;
    for (const x of prep(`SELECT ${packed} FROM temp.${instanceTable}`).pluck().iterate() as IterableIterator<number>) {
      while (left === 0) {
        if (++ti >= vocab.length) return null;
        b.term(vocab[ti]![0]);
        left = vocab[ti]![1];
      }
      left--;
      if (!put(b, f, ti, x)) return null;
    }
    if (left !== 0 || ti !== vocab.length - 1) return null;
    const built = b.finish();
    return { ...built, forward: f?.finish(built.block.ids) ?? null };
  };
  const slow = (): Built | null => {
    const b = blockBuilder(ncols, maxRow);
    const f = forwardOf();
    let term: string | null = null;
    let ti = -1;
    for (const [tm, x] of prep(`SELECT term, ${packed} FROM temp.${instanceTable}`).raw().iterate() as IterableIterator<[string, number]>) {
      if (tm !== term) {
        b.term((term = tm));
        ti++;
      }
      if (!put(b, f, ti, x)) return null;
    }
    const built = b.finish();
    return { ...built, forward: f?.finish(built.block.ids) ?? null };
  };
  const built = fast() ?? slow();
  return built ? { ...built, exists, rows } : null;
}
