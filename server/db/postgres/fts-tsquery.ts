import { FtsSubsetError, parseFtsSubset, type FtsNode } from '../../domain/search/fts-expression.ts';
import { fitsLexeme, porterTokens } from './porter-tokens.ts';

export { FtsSubsetError };

/**
 * Translation of the FTS5 MATCH expressions the lexical planner writes (domain/search/lexical.ts with
 * domain/search/lexical-words.ts `quote`, `orOf`, `scoped`; `allWordsMatch`) into
 * PostgreSQL tsquery text, for an index whose tsvector holds `porterTokens` lexemes and one weight
 * letter per FTS5 column. The accepted subset, and nothing else:
 *
 * | FTS5                         | tsquery                        |
 * |------------------------------|--------------------------------|
 * | `"word"`                     | `'stem'`                       |
 * | `"two words"` (any phrase)   | `('two' <-> 'word')`           |
 * | `"pre"*` (prefix phrase)     | `'pre':*` (last token prefixed)|
 * | `x AND y`, `x OR y`          | `(x & y)`, `(x \| y)`          |
 * | `( … )`                      | grouping                       |
 * | `{col} : ( … )`, `{col} : "p"` | every lexeme inside gets the column's weight (`'stem':A`) |
 *
 * AND binds tighter than OR, as in FTS5. A phrase's text is tokenized as FTS5 would tokenize it
 * (porter-tokens.ts), prefix tokens included (FTS5 stems `"runs"*` to `run*`). A phrase with no token
 * (`""`, `"!!"`) or with a token PostgreSQL cannot hold matches nothing, as `""` does in FTS5; an
 * expression that matches nothing as a whole translates to null. Anything else (barewords, NOT, NEAR,
 * `^`, `+`, implicit AND, unknown or several columns, a column filter inside another) throws
 * `FtsSubsetError`: the planner never writes it, so guessing a meaning would hide a bug.
 * FTS5 grammar: https://www.sqlite.org/fts5.html#full_text_query_syntax; tsquery:
 * https://www.postgresql.org/docs/15/datatype-textsearch.html#DATATYPE-TSQUERY
 */

/** A tsvector weight letter (A highest). */
export type TsWeight = 'A' | 'B' | 'C' | 'D';

/** A tsquery lexeme literal: quoted, inner quotes and backslashes escaped. */
const lexeme = (term: string): string => `'${term.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

/** tsquery text of a node, or null when it matches nothing. */
function render(n: FtsNode, columns: Readonly<Record<string, TsWeight>>, weight: TsWeight | null): string | null {
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
  if (n.k === 'col') return render(n.expr, columns, columns[n.column]!);
  const items = n.items.map((x) => render(x, columns, weight));
  if (n.k === 'and' && items.includes(null)) return null;
  const kept = items.filter((x): x is string => x !== null);
  if (kept.length === 0) return null;
  return kept.length === 1 ? kept[0]! : `(${kept.join(n.k === 'and' ? ' & ' : ' | ')})`;
}

/**
 * The tsquery text (for `$n::tsquery`) of an FTS5 MATCH expression of the planner's subset.
 * @param match the FTS5 expression, e.g. `{name} : (("red" OR "crimson") AND "fox"*)`
 * @param columns weight letter of each FTS5 column a `{col}` filter may name; a column filter is exact
 *   only when no other column shares its letter
 * @returns tsquery text such as `(('red':A | 'crimson':A) & 'fox':*A)`, or null when the expression
 *   matches nothing (every alternative an empty phrase)
 * @throws FtsSubsetError for syntax outside the subset (see the module note) or an unknown column
 */
export function ftsToTsquery(match: string, columns: Readonly<Record<string, TsWeight>>): string | null {
  return render(parseFtsSubset(match, Object.keys(columns)), columns, null);
}
