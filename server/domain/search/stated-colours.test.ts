import { describe, expect, it } from 'vitest';
import { contradictsColour, queryColour, statedColours } from './stated-colours.ts';

describe('stated colours', () => {
  it('reads a query colour word as basic colour terms: "gray" and plurals included, an unambiguous shade as its terms', () => {
    expect(queryColour('Gray')).toEqual(['grey']);
    expect(queryColour('reds')).toEqual(['red']);
    expect(queryColour('navy')).toEqual(['blue']);
    // a shade that is as often another thing in a query states no colour there
    expect(queryColour('cream')).toBeNull();
    expect(queryColour('glass')).toBeNull();
    expect(queryColour('constructor')).toBeNull();
  });

  it('reads the colours a product text states, shades as the terms they are called by', () => {
    expect([...statedColours(['White Cotton Shirt', null, '7 chakra bracelet, in blue or black.'])].sort()).toEqual([
      'black',
      'blue',
      'white',
    ]);
    expect([...statedColours(['Cream Sofa'])].sort()).toEqual(['beige', 'white', 'yellow']);
    expect([...statedColours(['Navy Sports Jacket'])]).toEqual(['blue']);
    expect(statedColours(['Classic Leather Jacket', 'constructors']).size).toBe(0);
  });

  it("a text contradicts a colour word only when it states some colour and none of the word's terms", () => {
    expect(contradictsColour(['blue'], new Set(['white']))).toBe(true);
    expect(contradictsColour(['blue'], new Set(['white', 'blue']))).toBe(false);
    expect(contradictsColour(['blue', 'purple'], new Set(['purple']))).toBe(false);
    expect(contradictsColour(['blue'], new Set())).toBe(false);
  });
});
