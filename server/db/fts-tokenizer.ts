import BetterSqlite3, { type Database, type Statement } from 'better-sqlite3';
import { stemmer } from 'stemmer';

/** Longest token SQLite's porter tokenizer stems (FTS5_PORTER_MAX_TOKEN in fts5_tokenize.c); longer ones pass through. */
const PORTER_MAX_TOKEN = 64;
/**
 * Text of ASCII letters in words of at most PORTER_MAX_TOKEN, one space apart, without "yy": SQLite's
 * porter takes a "yy" left by removing "-ed" or "-ing" for a double consonant and drops a "y"
 * ("yying" → "y"), `stemmer` reads the second "y" as a vowel ("yy"); those words go through FTS5.
 */
const ASCII_WORDS = new RegExp(`^[A-Za-z]{1,${PORTER_MAX_TOKEN}}(?: [A-Za-z]{1,${PORTER_MAX_TOKEN}})*$`);
const DOUBLE_Y = /yy/i;

/**
 * Whether a `tokenize` option is FTS5's porter over unicode61 with no option that changes what an
 * ASCII letter is (only `remove_diacritics`): then FTS5 makes of ASCII letters what Porter's
 * algorithm makes of them lowercased, which `stemmer` computes in JavaScript (the same 1980 algorithm
 * as SQLite's fts5_porter; db/fts-tokenizer.test.ts checks the two agree on every WordNet word and on
 * 100,000 random strings, but for the "yy" case that `ASCII_WORDS` leaves to FTS5). `tokenize` is the option as declared (quoted or bare), undefined for none.
 */
export function porterOverUnicode61(tokenize: string | undefined): boolean {
  if (!tokenize) return false;
  const words = tokenize
    .replace(/^(['"])(.*)\1$/s, '$2')
    .trim()
    .split(/\s+/);
  if (words[0] !== 'porter') return false;
  const rest = words.slice(1);
  if (rest.length === 0) return true;
  if (rest[0] !== 'unicode61') return false;
  const opts = rest.slice(1);
  if (opts.length % 2 !== 0) return false;
  for (let i = 0; i < opts.length; i += 2) if (opts[i] !== 'remove_diacritics' || !/^[012]$/.test(opts[i + 1]!)) return false;
  return true;
}

/**
 * FTS5's own tokenizer for one FTS5 table, usable from JavaScript: a contentless FTS5 table declared
 * with the same columns and `tokenize` option, read through its fts5vocab `instance` table
 * (https://www.sqlite.org/fts5.html#the_fts5vocab_virtual_table_module). Text tokenized here yields
 * exactly the terms FTS5 indexes for `fts` (Porter stems, diacritics removed, …), so in-memory
 * structures built from it agree with the index term for term.
 * The table lives in a private in-memory database (made on first use, closed with nothing: it holds
 * no file): writing it leaves `db` untouched, so `total_changes()` of `db`, which its readers use to
 * know whether their own connection wrote, does not move when a query phrase is tokenized.
 */
export function createFtsTokenizer(db: Database, fts: string) {
  let own: Database | null = null;
  /** the rows of `fts` by rowid, on `db` */
  let read: Statement | null = null;
  const stmts = new Map<string, Statement>();
  const prep = (sql: string): Statement => {
    let s = stmts.get(sql);
    if (!s) stmts.set(sql, (s = own!.prepare(sql)));
    return s;
  };
  let made: { table: string; instance: string; columns: number } | null = null;
  /** the tokenize option of `fts` as declared (quoted string or bare word); none = FTS5's default tokenizer */
  let declared: { tokenize: string | undefined; porter: boolean } | null = null;
  const tokenizeOption = (): { tokenize: string | undefined; porter: boolean } => {
    if (declared) return declared;
    const sql =
      (db.prepare("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?").pluck().get(fts) as string | undefined) ?? '';
    const tokenize = /\btokenize\s*=\s*('(?:[^']|'')*'|"(?:[^"]|"")*"|[^\s,)]+)/i.exec(sql)?.[1];
    return (declared = { tokenize, porter: porterOverUnicode61(tokenize) });
  };
  const make = (): { table: string; instance: string; columns: number } => {
    if (made) return made;
    const { tokenize } = tokenizeOption();
    const columns = (db.prepare(`SELECT count(*) FROM pragma_table_info('${fts}')`).pluck().get() as number) || 1;
    const table = 'tokens';
    const cols = Array.from({ length: columns }, (_, i) => `c${i}`).join(', ');
    own = new BetterSqlite3(':memory:');
    own.exec(
      `CREATE VIRTUAL TABLE ${table} USING fts5(${cols}, content=''${tokenize ? `, tokenize=${tokenize}` : ''});` +
        `CREATE VIRTUAL TABLE ${table}_instance USING fts5vocab(${table}, 'instance');`,
    );
    return (made = { table, instance: `${table}_instance`, columns });
  };
  /** Every token instance in the temp table as [term, rowid, column index, position in the column], then empties it. */
  const drain = (k: { table: string; instance: string }): [string, number, number, number][] => {
    try {
      const rows = prep(`SELECT term, doc, col, "offset" FROM ${k.instance}`).raw().all() as [string, number, string, number][];
      return rows.map(([term, doc, col, offset]) => [term, doc, Number(col.slice(1)), offset]);
    } finally {
      prep(`INSERT INTO ${k.table} (${k.table}) VALUES ('delete-all')`).run();
    }
  };

  /** The terms FTS5 makes of `text`, in order, through the private table. */
  const byFts5 = (text: string): string[] => {
    const k = make();
    prep(`INSERT INTO ${k.table} (rowid, c0) VALUES (1, ?)`).run(text);
    // instances come term by term: restore the text's order from the offsets
    const rows = (() => {
      try {
        return prep(`SELECT term, "offset" FROM ${k.instance}`).raw().all() as [string, number][];
      } finally {
        prep(`INSERT INTO ${k.table} (${k.table}) VALUES ('delete-all')`).run();
      }
    })();
    return rows.sort((a, b) => a[1] - b[1]).map((r) => r[0]);
  };

  return {
    /**
     * The token instances of rows of `fts` as stored now, read from `fts` itself (a row no longer there
     * has none). @returns [term, rowid, column index, position in the column (tokens before it)] in
     * index order (term, then rowid, then position)
     */
    instancesOf(seqs: number[]): [string, number, number, number][] {
      const k = make();
      const cols = Array.from({ length: k.columns }, (_, i) => `c${i}`).join(', ');
      const rows = (read ??= db.prepare(`SELECT rowid, * FROM main.${fts} WHERE rowid IN (SELECT value FROM json_each(?))`).raw());
      const put = prep(`INSERT INTO ${k.table} (rowid, ${cols}) VALUES (${new Array(k.columns + 1).fill('?').join(', ')})`);
      own!.transaction(() => {
        for (const row of rows.all(JSON.stringify(seqs)) as unknown[][]) put.run(...row);
      })();
      return drain(k);
    },
    /**
     * The terms FTS5 makes of `text` in any column, in order (a query phrase's tokens). ASCII words on
     * a porter-over-unicode61 table are stemmed in JavaScript (`porterOverUnicode61`: the same terms,
     * without the three statements a phrase otherwise costs); any other text goes through FTS5.
     */
    tokens(text: string): string[] {
      if (tokenizeOption().porter && ASCII_WORDS.test(text) && !DOUBLE_Y.test(text))
        return text
          .toLowerCase()
          .split(' ')
          .map((w) => stemmer(w));
      return byFts5(text);
    },
    /** `tokens` as FTS5 itself makes them (always the SQLite path). */
    tokensByFts5: byFts5,
  };
}
export type FtsTokenizer = ReturnType<typeof createFtsTokenizer>;
