/**
 * Colours a text states, for product search (catalog/colours.ts): the product side of asset coverage's
 * measured-colour rule (domain/search/coverage.ts). A product has no measured colours, but its title,
 * description, tags and colour options name the colour it comes in ("White Cotton Shirt", "in blue or
 * black", "Navy Sports Jacket"), so a text that names colours, none of them one the query asks for,
 * contradicts that colour word. Colours are compared as the basic colour terms of domain/media/colour.ts
 * (Berlin & Kay's eleven plus beige, teal and olive); a shade name common in product copy stands for the
 * basic terms it is called by (`SHADES`: "navy" is blue, "cream" white, beige or yellow). A word that is
 * no colour term and no listed shade states nothing, so it never contradicts. Pure functions.
 */
import { COLOUR_NAMES } from '../media/colour.ts';
import { words } from './lexical-words.ts';

/**
 * Shade names and the basic colour terms each may be called by, as a shopper would (a set, not the nearest
 * one: cream is as much white as beige). A query word among them asks for those terms; `PRODUCT_SHADES`
 * are read only in a product's text, being in a query as often another thing ("hand cream", "gold plated").
 */
const SHADES: Readonly<Record<string, readonly string[]>> = {
  navy: ['blue'],
  cobalt: ['blue'],
  indigo: ['blue', 'purple'],
  turquoise: ['teal', 'blue', 'green'],
  aqua: ['teal', 'blue'],
  crimson: ['red'],
  scarlet: ['red'],
  burgundy: ['red', 'purple'],
  maroon: ['red', 'brown'],
  charcoal: ['grey', 'black'],
  ivory: ['white', 'beige'],
  khaki: ['beige', 'brown', 'green', 'olive'],
  violet: ['purple'],
  lilac: ['purple', 'pink'],
  magenta: ['pink', 'purple'],
  fuchsia: ['pink', 'purple'],
};
const PRODUCT_SHADES: Readonly<Record<string, readonly string[]>> = {
  ...SHADES,
  cream: ['white', 'beige', 'yellow'],
  tan: ['brown', 'beige'],
  mustard: ['yellow'],
  gold: ['yellow'],
  golden: ['yellow'],
  silver: ['grey', 'white'],
  copper: ['orange', 'brown'],
  bronze: ['brown', 'orange'],
};

/** A word as a colour: lower case, "gray" as "grey", a plural ("reds") as its singular. */
function colourForm(word: string): string {
  const w = word.toLowerCase();
  if (w === 'gray' || w === 'grays') return 'grey';
  return w.endsWith('s') && (COLOUR_NAMES.has(w.slice(0, -1)) || Object.hasOwn(PRODUCT_SHADES, w.slice(0, -1))) ? w.slice(0, -1) : w;
}

/**
 * The basic colour terms a query word asks for: itself when it is one, a listed shade's terms.
 * @returns the terms, or null when the word is no colour word
 */
export function queryColour(word: string): readonly string[] | null {
  const w = colourForm(word);
  if (COLOUR_NAMES.has(w)) return [w];
  return Object.hasOwn(SHADES, w) ? SHADES[w]! : null;
}

/** The basic colour terms stated in `texts` (absent and null texts skipped), shades read as their terms. */
export function statedColours(texts: readonly (string | null | undefined)[]): Set<string> {
  const out = new Set<string>();
  for (const t of texts)
    for (const raw of t ? words(t) : []) {
      const w = colourForm(raw);
      if (COLOUR_NAMES.has(w)) out.add(w);
      else if (Object.hasOwn(PRODUCT_SHADES, w)) for (const c of PRODUCT_SHADES[w]!) out.add(c);
    }
  return out;
}

/** Whether a text stating `stated` contradicts a query's colour word (its `terms`): it states some colour, none of the word's. */
export const contradictsColour = (terms: readonly string[], stated: ReadonlySet<string>): boolean =>
  stated.size > 0 && !terms.some((c) => stated.has(c));
