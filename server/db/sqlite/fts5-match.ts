import type { LexicalExpr } from '../../domain/search/lexical-query.ts';

/**
 * FTS5 MATCH text of a lexical expression (domain/search/lexical-query.ts), in FTS5's query syntax
 * (https://www.sqlite.org/fts5.html#full_text_query_syntax):
 *
 * | expression                    | FTS5                  |
 * |-------------------------------|-----------------------|
 * | `phrase('two words')`         | `"two words"`         |
 * | `prefixPhrase('pre')`         | `"pre"*`              |
 * | `allOf([a, b])`, `anyOf([…])` | `(a AND b)`, `(a OR …)` |
 * | `inColumn(e, 'name')`         | `{name} : (e)`        |
 *
 * A phrase is always quoted (inner `"` doubled), so no text of a query becomes an FTS5 operator; every
 * AND and OR is parenthesised, so precedence never depends on FTS5's.
 * @returns the MATCH text, or null when the expression matches nothing (an OR of nothing, or an AND
 *   with such a part): FTS5 would reject `()` as a syntax error
 */
export function toFts5Match(e: LexicalExpr): string | null {
  switch (e.k) {
    case 'phrase':
      return `"${e.text.replace(/"/g, '""')}"${e.prefix ? '*' : ''}`;
    case 'col': {
      const inner = toFts5Match(e.expr);
      return inner === null ? null : `{${e.column}} : (${inner})`;
    }
    case 'and': {
      const items = e.items.map(toFts5Match);
      if (items.length === 0 || items.includes(null)) return null;
      return items.length === 1 ? items[0]! : `(${items.join(' AND ')})`;
    }
    case 'or': {
      const items = e.items.map(toFts5Match).filter((x): x is string => x !== null);
      if (items.length === 0) return null;
      return items.length === 1 ? items[0]! : `(${items.join(' OR ')})`;
    }
  }
}
