import { fitsLexeme, porterTokens } from './porter-tokens.ts';

/**
 * Translation of the FTS5 MATCH expressions the lexical planner writes (domain/lexical.ts with
 * domain/lexical-words.ts `quote`, `orOf`, `scoped`; `allWordsMatch`) into
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

/** A MATCH expression outside the subset this module translates. */
export class FtsSubsetError extends Error {
  constructor(
    message: string,
    readonly expression: string,
  ) {
    super(`${message} in FTS5 expression ${JSON.stringify(expression)}`);
    this.name = 'FtsSubsetError';
  }
}

type Token =
  { t: 'phrase'; text: string; prefix: boolean } | { t: 'and' | 'or' | 'lparen' | 'rparen' | 'colon' } | { t: 'column'; name: string };

type Node =
  | { k: 'phrase'; terms: string[] | null; prefix: boolean }
  | { k: 'and' | 'or'; items: Node[] }
  | { k: 'col'; weight: TsWeight; expr: Node };

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

function parse(src: string, columns: Readonly<Record<string, TsWeight>>): Node {
  const toks = lex(src);
  let p = 0;
  const peek = (): Token | undefined => toks[p];
  const expect = (t: Token['t']): void => {
    if (toks[p]?.t !== t) throw new FtsSubsetError(`expected ${t} at token ${p + 1}`, src);
    p++;
  };
  const binary = (op: 'and' | 'or', next: (inCol: boolean) => Node, inCol: boolean): Node => {
    const items = [next(inCol)];
    while (peek()?.t === op) {
      p++;
      items.push(next(inCol));
    }
    return items.length === 1 ? items[0]! : { k: op, items };
  };
  const or = (inCol: boolean): Node => binary('or', and, inCol);
  const and = (inCol: boolean): Node => binary('and', unary, inCol);
  function unary(inCol: boolean): Node {
    const tok = peek();
    if (!tok) throw new FtsSubsetError('unexpected end', src);
    p++;
    if (tok.t === 'phrase') {
      const terms = porterTokens(tok.text);
      return { k: 'phrase', terms: terms.length > 0 && terms.every(fitsLexeme) ? terms : null, prefix: tok.prefix };
    }
    if (tok.t === 'lparen') {
      const e = or(inCol);
      expect('rparen');
      return e;
    }
    if (tok.t === 'column') {
      if (inCol) throw new FtsSubsetError('nested column filter', src);
      const weight = Object.hasOwn(columns, tok.name) ? columns[tok.name] : undefined;
      if (!weight) throw new FtsSubsetError(`unknown column ${JSON.stringify(tok.name)}`, src);
      expect('colon');
      const next = peek();
      if (next?.t === 'lparen') {
        p++;
        const e = or(true);
        expect('rparen');
        return { k: 'col', weight, expr: e };
      }
      if (next?.t === 'phrase') return { k: 'col', weight, expr: unary(true) };
      throw new FtsSubsetError('a column filter must be followed by a phrase or a parenthesised expression', src);
    }
    throw new FtsSubsetError(`unexpected ${tok.t} at token ${p}`, src);
  }
  const root = or(false);
  if (p !== toks.length) throw new FtsSubsetError(`unexpected ${toks[p]!.t} at token ${p + 1} (implicit AND is not supported)`, src);
  return root;
}

/** A tsquery lexeme literal: quoted, inner quotes and backslashes escaped. */
const lexeme = (term: string): string => `'${term.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

/** tsquery text of a node, or null when it matches nothing. */
function render(n: Node, weight: TsWeight | null): string | null {
  if (n.k === 'phrase') {
    if (!n.terms) return null;
    const last = n.terms.length - 1;
    const parts = n.terms.map((t, i) => {
      const flags = `${n.prefix && i === last ? '*' : ''}${weight ?? ''}`;
      return flags ? `${lexeme(t)}:${flags}` : lexeme(t);
    });
    return parts.length === 1 ? parts[0]! : `(${parts.join(' <-> ')})`;
  }
  if (n.k === 'col') return render(n.expr, n.weight);
  const items = n.items.map((x) => render(x, weight));
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
  return render(parse(match, columns), null);
}
