import { describe, expect, it } from 'vitest';
import { orOf, quote, scoped } from '../../domain/search/lexical-words.ts';
import { allWordsMatch } from '../../domain/search/lexical-words.ts';
import { ftsToTsquery, FtsSubsetError, type TsWeight } from './fts-tsquery.ts';
import { porterTokens } from './porter-tokens.ts';

const COLUMNS: Record<string, TsWeight> = { name: 'A', tags: 'B', alt_text: 'C', ocr_text: 'D' };
const tsq = (m: string): string | null => ftsToTsquery(m, COLUMNS);

describe('ftsToTsquery', () => {
  it.each([
    ['"flowers"', "'flower'"],
    ['"Café"', "'cafe'"],
    ['"t-shirt"', "('t' <-> 'shirt')"],
    ['"red fox"', "('red' <-> 'fox')"],
    ['"flo"*', "'flo':*"],
    // FTS5 stems a prefix token too: "runs"* is run*
    ['"runs"*', "'run':*"],
    ['"two words"*', "('two' <-> 'word':*)"],
    ['"red" AND "fox"', "('red' & 'fox')"],
    ['("red" OR "crimson")', "('red' | 'crimson')"],
    ['"a" OR "b" AND "c"', "('a' | ('b' & 'c'))"],
    ['("a" OR "b") AND "c"', "(('a' | 'b') & 'c')"],
    ['{name} : ("fox")', "'fox':A"],
    ['{tags} : "fox"', "'fox':B"],
    ['{ocr_text} : (("red" OR "crimson") AND "fox"*)', "(('red':D | 'crimson':D) & 'fox':*D)"],
    ['{alt_text} : ("sea view"*)', "('sea':C <-> 'view':*C)"],
    ['"say ""hi"""', "('sai' <-> 'hi')"],
  ])('%s → %s', (match, expected) => {
    expect(tsq(match)).toBe(expected);
  });

  it('translates every expression shape the planner writes', () => {
    const words = ['red', 'foxes'];
    const all = scoped(words.map(quote).join(' AND '), 'name');
    expect(tsq(all)).toBe("('red':A & 'fox':A)");
    const termExpr = orOf([quote('sofa'), quote('couch'), quote('settee')]);
    expect(tsq(scoped([termExpr, `${quote('gre')}*`].join(' OR '), null))).toBe("(('sofa' | 'couch' | 'sette') | 'gre':*)");
    expect(tsq(allWordsMatch(['summer', 'sale']))).toBe("('summer' & 'sale')");
  });

  it('a phrase without a token matches nothing, as in FTS5; AND with it matches nothing, OR drops it', () => {
    expect(tsq('""')).toBeNull();
    expect(tsq('"!!"')).toBeNull();
    expect(tsq('"fox" AND ""')).toBeNull();
    expect(tsq('("fox" OR "--")')).toBe("'fox'");
    expect(tsq('{name} : ("" OR "?")')).toBeNull();
    expect(tsq(`"${'x'.repeat(3000)}"`)).toBeNull();
  });

  it('uses the stems of porterTokens for every phrase', () => {
    for (const w of ['generously', 'turquoise', 'mountains', 'running', 'ponies']) expect(tsq(quote(w))).toBe(`'${porterTokens(w)[0]}'`);
  });

  it.each([
    ['fox', /bareword/],
    ['"a" NOT "b"', /NOT/],
    ['NEAR("a" "b")', /NEAR/],
    ['"a" "b"', /implicit AND/],
    ['^"a"', /character/],
    ['"a" + "b"', /character/],
    ['-{name} : "a"', /character/],
    ['"a" *', /character/],
    ['{colour} : "red"', /unknown column/],
    ['{name tags} : "red"', /exactly one column/],
    ['{name} : ({tags} : "red")', /nested column/],
    ['{name} "red"', /expected colon/],
    ['{name} : AND', /phrase or a parenthesised/],
    ['("a"', /expected rparen/],
    ['"a', /unterminated string/],
    ['"a" AND', /unexpected end/],
    ['', /unexpected end/],
    ['{constructor} : "a"', /unknown column/],
  ])('rejects %s', (match, message) => {
    expect(() => tsq(match)).toThrow(FtsSubsetError);
    expect(() => tsq(match)).toThrow(message);
  });
});
