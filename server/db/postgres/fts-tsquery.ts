import type { LexicalExpr } from '../../domain/search/lexical-query.ts';
import { fitsLexeme, porterTokens } from './porter-tokens.ts';

/**
 * Compilation of the lexical planner's expressions (domain/search/lexical-query.ts) into PostgreSQL
 * tsquery text, for an index whose tsvector holds `porterTokens` lexemes and one weight letter per
 * column of the SQLite FTS5 table:
 *
 * | expression                      | tsquery                        |
 * |---------------------------------|--------------------------------|
 * | `phrase('word')`                | `'stem'`                       |
 * | `phrase('two words')`           | `('two' <-> 'word')`           |
 * | `prefixPhrase('pre')`           | `'pre':*` (last token prefixed)|
 * | `allOf([x, y])`, `anyOf([x, y])`| `(x & y)`, `(x \| y)`          |
 * | `inColumn(e, col)`              | every lexeme inside gets the column's weight (`'stem':A`) |
 *
 * A phrase's text is tokenized as FTS5 would tokenize it (porter-tokens.ts), prefix tokens included
 * (FTS5 stems `"runs"*` to `run*`). A phrase with no token (`""`, `"!!"`) or with a token PostgreSQL
 * cannot hold matches nothing, as `""` does in FTS5; an expression that matches nothing as a whole
 * compiles to null.
 * tsquery: https://www.postgresql.org/docs/15/datatype-textsearch.html#DATATYPE-TSQUERY
 */

/** A tsvector weight letter (A highest). */
export type TsWeight = 'A' | 'B' | 'C' | 'D';

/** A tsquery lexeme literal: quoted, inner quotes and backslashes escaped. */
const lexeme = (term: string): string => `'${term.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

/** tsquery text of a node, or null when it matches nothing. */
function render(n: LexicalExpr, columns: Readonly<Record<string, TsWeight>>, weight: TsWeight | null): string | null {
  if (n.k === 'phrase') {
    const terms = porterTokens(n.text);
    if (terms.length === 0 || !terms.every(fitsLexeme)) return null;
    const last = terms.length - 1;
    const parts = terms.map((t, i) => {
      const flags = `${n.prefix && i === last ? '*' : ''}${weight ?? ''}`;
      return flags ? `${lexeme(t)}:${flags}` : lexeme(t);
    });
    return parts.length === 1 ? parts[0]! : `(${parts.join(' <-> ')})`;
  }
  if (n.k === 'col') {
    // own keys only: "constructor" is no column
    const w = Object.hasOwn(columns, n.column) ? columns[n.column] : undefined;
    if (!w) throw new Error(`lexical expression names column ${JSON.stringify(n.column)}, which the index does not have`);
    return render(n.expr, columns, w);
  }
  const items = n.items.map((x) => render(x, columns, weight));
  if (n.k === 'and' && items.includes(null)) return null;
  const kept = items.filter((x): x is string => x !== null);
  if (kept.length === 0) return null;
  return kept.length === 1 ? kept[0]! : `(${kept.join(n.k === 'and' ? ' & ' : ' | ')})`;
}

/**
 * The tsquery text (for `$n::tsquery`) of a lexical expression (see the module note).
 * @param columns weight letter of each column a column node may name; a column node is exact only when
 *   no other column shares its letter
 * @returns tsquery text such as `(('red':A | 'crimson':A) & 'fox':*A)`, or null when the expression
 *   matches nothing (every alternative an empty phrase)
 * @throws Error for a column node naming a column not in `columns`
 */
export function toTsquery(e: LexicalExpr, columns: Readonly<Record<string, TsWeight>>): string | null {
  return render(e, columns, null);
}
