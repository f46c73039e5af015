import { describe, expect, it } from 'vitest';
import { allOf, allWords, anyOf, inColumn, phrase, prefixPhrase, type LexicalExpr } from '../../domain/search/lexical-query.ts';
import { toFts5Match } from './fts5-match.ts';

describe('toFts5Match', () => {
  // [what the case checks, expression, FTS5 MATCH text]
  it.each<[string, LexicalExpr, string]>([
    ['a phrase', phrase('red'), '"red"'],
    ['a phrase of several words', phrase('red fox'), '"red fox"'],
    // FTS5 string syntax: a double quote inside a string is doubled (https://www.sqlite.org/fts5.html#fts5_strings)
    ['a phrase with a double quote', phrase('say "hi"'), '"say ""hi"""'],
    ['a prefix phrase', prefixPhrase('runs'), '"runs"*'],
    ['a prefix phrase of several words', prefixPhrase('sea view'), '"sea view"*'],
    ['a prefix phrase with a double quote', prefixPhrase('say "hi'), '"say ""hi"*'],
    ['AND', allOf([phrase('mountain'), phrase('lake')]), '("mountain" AND "lake")'],
    ['OR', anyOf([phrase('lake'), phrase('beach'), phrase('sea')]), '("lake" OR "beach" OR "sea")'],
    ['every word', allWords(['summer', 'sale']), '("summer" AND "sale")'],
    ['AND inside OR', anyOf([phrase('a'), allOf([phrase('b'), phrase('c')])]), '("a" OR ("b" AND "c"))'],
    ['OR inside AND', allOf([anyOf([phrase('a'), phrase('b')]), prefixPhrase('c')]), '(("a" OR "b") AND "c"*)'],
    ['a column', inColumn(phrase('red'), 'name'), '{name} : ("red")'],
    ['a prefix in a column', inColumn(prefixPhrase('runs'), 'name'), '{name} : ("runs"*)'],
    [
      'AND and OR in a column',
      inColumn(allOf([anyOf([phrase('mountain'), phrase('zebra')]), phrase('lake')]), 'ocr_text'),
      '{ocr_text} : ((("mountain" OR "zebra") AND "lake"))',
    ],
    ['every column', inColumn(phrase('red'), null), '"red"'],
  ])('$0', (_label, expr, want) => {
    expect(toFts5Match(expr)).toBe(want);
  });

  it('an OR of nothing matches nothing, so does an AND holding it; an OR drops it', () => {
    expect(toFts5Match(anyOf([]))).toBeNull();
    expect(toFts5Match(allOf([phrase('fox'), anyOf([])]))).toBeNull();
    expect(toFts5Match(allOf([phrase('fox'), anyOf([anyOf([]), anyOf([])])]))).toBeNull();
    expect(toFts5Match(inColumn(anyOf([]), 'name'))).toBeNull();
    expect(toFts5Match(anyOf([phrase('fox'), anyOf([]), phrase('red')]))).toBe('("fox" OR "red")');
    expect(toFts5Match(anyOf([phrase('fox'), allOf([phrase('red'), anyOf([])]), phrase('lake')]))).toBe('("fox" OR "lake")');
  });
});
