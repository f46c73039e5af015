import type { Database, Statement } from 'better-sqlite3';

/**
 * FTS5's own tokenizer for one FTS5 table, usable from JavaScript: a contentless FTS5 table in the
 * connection's temp schema declared with the same columns and `tokenize` option, read through its
 * fts5vocab `instance` table (https://www.sqlite.org/fts5.html#the_fts5vocab_virtual_table_module).
 * Text tokenized here yields exactly the terms FTS5 indexes for `fts` (Porter stems, diacritics
 * removed, …), so in-memory structures built from it agree with the index term for term.
 * The temp tables are created on first use and live as long as the connection.
 */
export function createFtsTokenizer(db: Database, fts: string) {
  const stmts = new Map<string, Statement>();
  const prep = (sql: string): Statement => {
    let s = stmts.get(sql);
    if (!s) stmts.set(sql, (s = db.prepare(sql)));
    return s;
  };
  let made: { table: string; instance: string; columns: number } | null = null;
  const make = (): { table: string; instance: string; columns: number } => {
    if (made) return made;
    const sql =
      (db.prepare("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?").pluck().get(fts) as string | undefined) ?? '';
    // the tokenize option as declared (quoted string or bare word); none = FTS5's default tokenizer
    const tokenize = /\btokenize\s*=\s*('(?:[^']|'')*'|"(?:[^"]|"")*"|[^\s,)]+)/i.exec(sql)?.[1];
    const columns = (db.prepare(`SELECT count(*) FROM pragma_table_info('${fts}')`).pluck().get() as number) || 1;
    const table = `lexical_tokens_${fts}`;
    const cols = Array.from({ length: columns }, (_, i) => `c${i}`).join(', ');
    db.exec(
      `CREATE VIRTUAL TABLE IF NOT EXISTS temp.${table} USING fts5(${cols}, content=''${tokenize ? `, tokenize=${tokenize}` : ''});` +
        `CREATE VIRTUAL TABLE IF NOT EXISTS temp.${table}_instance USING fts5vocab(temp, ${table}, 'instance');`,
    );
    return (made = { table, instance: `${table}_instance`, columns });
  };
  /** Every token instance in the temp table as [term, rowid, column index], then empties it. */
  const drain = (k: { table: string; instance: string }): [string, number, number][] => {
    try {
      const rows = prep(`SELECT term, doc, col FROM temp.${k.instance}`).raw().all() as [string, number, string][];
      return rows.map(([term, doc, col]) => [term, doc, Number(col.slice(1))]);
    } finally {
      prep(`INSERT INTO temp.${k.table} (${k.table}) VALUES ('delete-all')`).run();
    }
  };

  return {
    /**
     * The token instances of rows of `fts` as stored now, read from `fts` itself (a row no longer there
     * has none). @returns [term, rowid, column index] in index order (term, then rowid, then position)
     */
    instancesOf(seqs: number[]): [string, number, number][] {
      const k = make();
      const cols = Array.from({ length: k.columns }, (_, i) => `c${i}`).join(', ');
      prep(
        `INSERT INTO temp.${k.table} (rowid, ${cols}) SELECT rowid, * FROM main.${fts} WHERE rowid IN (SELECT value FROM json_each(?))`,
      ).run(JSON.stringify(seqs));
      return drain(k);
    },
    /** The terms FTS5 makes of `text` in any column, in order (a query phrase's tokens). */
    tokens(text: string): string[] {
      const k = make();
      prep(`INSERT INTO temp.${k.table} (rowid, c0) VALUES (1, ?)`).run(text);
      // instances come term by term: restore the text's order from the offsets
      const rows = (() => {
        try {
          return prep(`SELECT term, "offset" FROM temp.${k.instance}`).raw().all() as [string, number][];
        } finally {
          prep(`INSERT INTO temp.${k.table} (${k.table}) VALUES ('delete-all')`).run();
        }
      })();
      return rows.sort((a, b) => a[1] - b[1]).map((r) => r[0]);
    },
  };
}
export type FtsTokenizer = ReturnType<typeof createFtsTokenizer>;
