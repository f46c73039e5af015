import { describe, expect, it } from 'vitest';
import { allOf, allWords, anyOf, inColumn, phrase, prefixPhrase, type LexicalExpr } from '../../domain/search/lexical-query.ts';
import { toTsquery, type TsWeight } from './fts-tsquery.ts';
import { porterTokens } from './porter-tokens.ts';

const COLUMNS: Record<string, TsWeight> = { name: 'A', tags: 'B', alt_text: 'C', ocr_text: 'D' };
const tsq = (e: LexicalExpr): string | null => toTsquery(e, COLUMNS);

describe('toTsquery', () => {
  // [label (the expression in FTS5 notation), expression, tsquery]
  it.each<[string, LexicalExpr, string]>([
    ['"flowers"', phrase('flowers'), "'flower'"],
    ['"Café"', phrase('Café'), "'cafe'"],
    ['"t-shirt"', phrase('t-shirt'), "('t' <-> 'shirt')"],
    ['"red fox"', phrase('red fox'), "('red' <-> 'fox')"],
    ['"flo"*', prefixPhrase('flo'), "'flo':*"],
    // FTS5 stems a prefix token too: "runs"* is run*
    ['"runs"*', prefixPhrase('runs'), "'run':*"],
    ['"two words"*', prefixPhrase('two words'), "('two' <-> 'word':*)"],
    ['"red" AND "fox"', allOf([phrase('red'), phrase('fox')]), "('red' & 'fox')"],
    ['("red" OR "crimson")', anyOf([phrase('red'), phrase('crimson')]), "('red' | 'crimson')"],
    ['"a" OR ("b" AND "c")', anyOf([phrase('a'), allOf([phrase('b'), phrase('c')])]), "('a' | ('b' & 'c'))"],
    ['("a" OR "b") AND "c"', allOf([anyOf([phrase('a'), phrase('b')]), phrase('c')]), "(('a' | 'b') & 'c')"],
    ['{name} : ("fox")', inColumn(phrase('fox'), 'name'), "'fox':A"],
    ['{tags} : ("fox")', inColumn(phrase('fox'), 'tags'), "'fox':B"],
    [
      '{ocr_text} : (("red" OR "crimson") AND "fox"*)',
      inColumn(allOf([anyOf([phrase('red'), phrase('crimson')]), prefixPhrase('fox')]), 'ocr_text'),
      "(('red':D | 'crimson':D) & 'fox':*D)",
    ],
    ['{alt_text} : ("sea view"*)', inColumn(prefixPhrase('sea view'), 'alt_text'), "('sea':C <-> 'view':*C)"],
    ['"say ""hi"""', phrase('say "hi"'), "('sai' <-> 'hi')"],
  ])('$0 → $2', (_label, expr, expected) => {
    expect(tsq(expr)).toBe(expected);
  });

  it('translates every expression shape the planner builds', () => {
    expect(tsq(inColumn(allWords(['red', 'foxes']), 'name'))).toBe("('red':A & 'fox':A)");
    const termExpr = anyOf([phrase('sofa'), phrase('couch'), phrase('settee')]);
    expect(tsq(inColumn(anyOf([termExpr, prefixPhrase('gre')]), null))).toBe("(('sofa' | 'couch' | 'sette') | 'gre':*)");
    expect(tsq(allWords(['summer', 'sale']))).toBe("('summer' & 'sale')");
  });

  it('a phrase without a token matches nothing, as in FTS5; AND with it matches nothing, OR drops it', () => {
    expect(tsq(phrase(''))).toBeNull();
    expect(tsq(phrase('!!'))).toBeNull();
    expect(tsq(allOf([phrase('fox'), phrase('')]))).toBeNull();
    expect(tsq(anyOf([phrase('fox'), phrase('--')]))).toBe("'fox'");
    expect(tsq(inColumn(anyOf([phrase(''), phrase('?')]), 'name'))).toBeNull();
    // a token longer than PostgreSQL holds in a lexeme
    expect(tsq(phrase('x'.repeat(3000)))).toBeNull();
  });

  it('an OR of nothing matches nothing, and so does an AND holding it', () => {
    expect(tsq(anyOf([]))).toBeNull();
    expect(tsq(allOf([phrase('fox'), anyOf([])]))).toBeNull();
    expect(tsq(anyOf([phrase('fox'), anyOf([])]))).toBe("'fox'");
  });

  it('uses the stems of porterTokens for every phrase', () => {
    for (const w of ['generously', 'turquoise', 'mountains', 'running', 'ponies']) expect(tsq(phrase(w))).toBe(`'${porterTokens(w)[0]}'`);
  });

  // `constructor`: a column is looked up among the index's own, never on the object's prototype
  it.each(['colour', 'constructor'])('throws for the unknown column %s', (column) => {
    expect(() => tsq(inColumn(phrase('red'), column))).toThrow(Error);
    expect(() => tsq(inColumn(phrase('red'), column))).toThrow(column);
  });
});
