/**
 * Spelling correction against a frequency-ranked vocabulary (the text embedder's words), for query words
 * no document of the library says and no word vector knows: without it such a word is simply lost to
 * meaning search ("mountian" embeds to nothing). One edit in the sense of Damerau (1964, "A technique
 * for computer detection and correction of spelling errors", CACM 7(3)): a letter inserted, deleted or
 * replaced, or two adjacent letters swapped; the candidate used most often wins, as in Norvig's
 * corrector ("How to Write a Spelling Corrector", 2007). The library's own vocabulary is the lexical
 * planner's (domain/search/typo.ts), and it corrects first: this only takes the words it left unmatched.
 */

/** Shortest word corrected, letters: shorter words are one edit away from too many others. */
export const MIN_SPELL_LETTERS = 4;

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
/**
 * The keys beside each letter on a QWERTY row: a replaced letter is a neighbouring key, as Hunspell's
 * `KEY qwertyuiop|asdfghjkl|zxcvbnm` has it. Any letter at all would let a frequent word win by chance
 * ("catcus" → "caucus" before "cactus").
 */
const NEIGHBOURS: Record<string, string> = (() => {
  const out: Record<string, string> = {};
  for (const row of ['qwertyuiop', 'asdfghjkl', 'zxcvbnm'])
    for (let i = 0; i < row.length; i++) out[row[i]!] = (row[i - 1] ?? '') + (row[i + 1] ?? '');
  return out;
})();

/**
 * Every string one edit from `word`: a letter (a–z) inserted, a letter deleted, a letter replaced by a
 * neighbouring key, or two adjacent letters swapped.
 */
export function oneEditAway(word: string): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i <= word.length; i++) {
    const a = word.slice(0, i);
    const b = word.slice(i);
    if (b) out.add(a + b.slice(1));
    if (b.length > 1) out.add(a + b[1] + b[0] + b.slice(2));
    if (b) for (const c of NEIGHBOURS[b[0]!] ?? '') out.add(a + c + b.slice(1));
    for (const c of LETTERS) out.add(a + c + b);
  }
  out.delete(word);
  return out;
}

/**
 * The word one edit from `word` that the vocabulary ranks first (used most often).
 * @param word a lower-case query word
 * @param rankOf a known word's rank in the vocabulary (0 = most frequent), undefined for an unknown word
 * @returns null when `word` is known itself, is not a–z only, is shorter than `MIN_SPELL_LETTERS`,
 *   or nothing one edit away is known
 */
export function nearestKnown(word: string, rankOf: (w: string) => number | undefined): string | null {
  if (word.length < MIN_SPELL_LETTERS || !/^[a-z]+$/.test(word) || rankOf(word) !== undefined) return null;
  let best: string | null = null;
  let bestRank = Infinity;
  for (const c of oneEditAway(word)) {
    const r = rankOf(c);
    if (r !== undefined && r < bestRank) {
      best = c;
      bestRank = r;
    }
  }
  return best;
}
