/**
 * The expressions the lexical planner (domain/search/lexical.ts) asks a lexical index about: phrases
 * combined with AND and OR, optionally limited to one column. The planner builds them with the functions
 * below; each backend compiles them to its own query language (FTS5 MATCH on SQLite,
 * db/sqlite/fts5-match.ts; tsquery on PostgreSQL, db/postgres/fts-tsquery.ts), so no backend parses
 * another's syntax.
 *
 * A phrase's text is kept as the user or the thesaurus wrote it; each backend tokenizes it as its index
 * tokenizes documents (FTS5 unicode61 + Porter; porter-tokens.ts on PostgreSQL). A phrase with no token
 * matches nothing, an OR of nothing matches nothing, and an AND with a part that matches nothing matches
 * nothing.
 */

/** A lexical query expression. */
export type LexicalExpr =
  | { k: 'phrase'; text: string; prefix: boolean }
  | { k: 'and' | 'or'; items: LexicalExpr[] }
  | { k: 'col'; column: string; expr: LexicalExpr };

/** The phrase `text`: its tokens, in order and adjacent. */
export const phrase = (text: string): LexicalExpr => ({ k: 'phrase', text, prefix: false });

/** The phrase `text` with its last token as a prefix (`"fox"*` finds "foxes" and "foxglove"). */
export const prefixPhrase = (text: string): LexicalExpr => ({ k: 'phrase', text, prefix: true });

/** Any of `items` (an empty list matches nothing; one item is itself). */
export const anyOf = (items: LexicalExpr[]): LexicalExpr => (items.length === 1 ? items[0]! : { k: 'or', items });

/** All of `items` (one item is itself). */
export const allOf = (items: LexicalExpr[]): LexicalExpr => (items.length === 1 ? items[0]! : { k: 'and', items });

/** Every word of `ws`, each a phrase of its own (never an operator of any backend). */
export const allWords = (ws: readonly string[]): LexicalExpr => allOf(ws.map(phrase));

/** `expr` limited to `column`, or unchanged for all columns (`column` null). */
export const inColumn = (expr: LexicalExpr, column: string | null): LexicalExpr => (column ? { k: 'col', column, expr } : expr);
