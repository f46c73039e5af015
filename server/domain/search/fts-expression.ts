/**
 * The FTS5 MATCH expressions the lexical planner writes (domain/search/lexical.ts with domain/search/lexical-words.ts
 * `quote`, `orOf`, `scoped`; `allWordsMatch`), parsed into a tree that every lexical index other than
 * FTS5 itself evaluates (PostgreSQL tsquery, db/postgres/fts-tsquery.ts). The accepted subset, and nothing else:
 *
 * | FTS5                           | node                                   |
 * |--------------------------------|----------------------------------------|
 * | `"word"`, `"two words"`        | `{ k: 'phrase', text, prefix: false }` |
 * | `"pre"*` (prefix phrase)       | `{ k: 'phrase', text, prefix: true }`  |
 * | `x AND y`, `x OR y`            | `{ k: 'and' \| 'or', items }`          |
 * | `( … )`                        | grouping                               |
 * | `{col} : ( … )`, `{col} : "p"` | `{ k: 'col', column, expr }`           |
 *
 * AND binds tighter than OR, as in FTS5. A phrase's text is kept as written (`""` unescaped): each
 * evaluator tokenizes it as FTS5 would. Anything else (barewords, NOT, NEAR, `^`, `+`, implicit AND,
 * unknown or several columns, a column filter inside another) throws `FtsSubsetError`: the planner
 * never writes it, so guessing a meaning would hide a bug.
 * FTS5 grammar: https://www.sqlite.org/fts5.html#full_text_query_syntax
 */

/** A MATCH expression outside the subset the planner writes. */
export class FtsSubsetError extends Error {
  constructor(
    message: string,
    readonly expression: string,
  ) {
    super(`${message} in FTS5 expression ${JSON.stringify(expression)}`);
    this.name = 'FtsSubsetError';
  }
}

/** A parsed expression of the planner's FTS5 subset. */
export type FtsNode =
  { k: 'phrase'; text: string; prefix: boolean } | { k: 'and' | 'or'; items: FtsNode[] } | { k: 'col'; column: string; expr: FtsNode };

type Token =
  { t: 'phrase'; text: string; prefix: boolean } | { t: 'and' | 'or' | 'lparen' | 'rparen' | 'colon' } | { t: 'column'; name: string };

function lex(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/u.test(c)) {
      i++;
    } else if (c === '"') {
      let text = '';
      let j = i + 1;
      for (;;) {
        if (j >= src.length) throw new FtsSubsetError('unterminated string', src);
        if (src[j] === '"') {
          if (src[j + 1] === '"') {
            text += '"';
            j += 2;
            continue;
          }
          break;
        }
        text += src[j];
        j++;
      }
      const prefix = src[j + 1] === '*';
      out.push({ t: 'phrase', text, prefix });
      i = j + 1 + (prefix ? 1 : 0);
    } else if (c === '(' || c === ')' || c === ':') {
      out.push({ t: c === '(' ? 'lparen' : c === ')' ? 'rparen' : 'colon' });
      i++;
    } else if (c === '{') {
      const end = src.indexOf('}', i);
      if (end < 0) throw new FtsSubsetError('unterminated column filter', src);
      const names = src
        .slice(i + 1, end)
        .trim()
        .split(/\s+/u)
        .filter(Boolean);
      if (names.length !== 1) throw new FtsSubsetError('a column filter must name exactly one column', src);
      out.push({ t: 'column', name: names[0]! });
      i = end + 1;
    } else {
      const m = /^[^\s"(){}:*^+-]+/u.exec(src.slice(i));
      if (m && (m[0] === 'AND' || m[0] === 'OR')) {
        out.push({ t: m[0] === 'AND' ? 'and' : 'or' });
        i += m[0].length;
      } else {
        throw new FtsSubsetError(
          m ? `unsupported bareword or operator ${JSON.stringify(m[0])}` : `unsupported character ${JSON.stringify(c)}`,
          src,
        );
      }
    }
  }
  return out;
}

/**
 * Parse an FTS5 MATCH expression of the planner's subset.
 * @param columns the FTS5 columns a `{col}` filter may name
 * @throws FtsSubsetError for syntax outside the subset or an unknown column
 */
export function parseFtsSubset(src: string, columns: readonly string[]): FtsNode {
  const toks = lex(src);
  let p = 0;
  const peek = (): Token | undefined => toks[p];
  const expect = (t: Token['t']): void => {
    if (toks[p]?.t !== t) throw new FtsSubsetError(`expected ${t} at token ${p + 1}`, src);
    p++;
  };
  const binary = (op: 'and' | 'or', next: (inCol: boolean) => FtsNode, inCol: boolean): FtsNode => {
    const items = [next(inCol)];
    while (peek()?.t === op) {
      p++;
      items.push(next(inCol));
    }
    return items.length === 1 ? items[0]! : { k: op, items };
  };
  const or = (inCol: boolean): FtsNode => binary('or', and, inCol);
  const and = (inCol: boolean): FtsNode => binary('and', unary, inCol);
  function unary(inCol: boolean): FtsNode {
    const tok = peek();
    if (!tok) throw new FtsSubsetError('unexpected end', src);
    p++;
    if (tok.t === 'phrase') return { k: 'phrase', text: tok.text, prefix: tok.prefix };
    if (tok.t === 'lparen') {
      const e = or(inCol);
      expect('rparen');
      return e;
    }
    if (tok.t === 'column') {
      if (inCol) throw new FtsSubsetError('nested column filter', src);
      if (!columns.includes(tok.name)) throw new FtsSubsetError(`unknown column ${JSON.stringify(tok.name)}`, src);
      const column = tok.name;
      expect('colon');
      const next = peek();
      if (next?.t === 'lparen') {
        p++;
        const e = or(true);
        expect('rparen');
        return { k: 'col', column, expr: e };
      }
      if (next?.t === 'phrase') return { k: 'col', column, expr: unary(true) };
      throw new FtsSubsetError('a column filter must be followed by a phrase or a parenthesised expression', src);
    }
    throw new FtsSubsetError(`unexpected ${tok.t} at token ${p}`, src);
  }
  const root = or(false);
  if (p !== toks.length) throw new FtsSubsetError(`unexpected ${toks[p]!.t} at token ${p + 1} (implicit AND is not supported)`, src);
  return root;
}
