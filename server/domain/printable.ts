/**
 * Characters that must not reach model-facing text verbatim: C0/C1 controls (a newline in a name would
 * forge extra result lines), DEL, bidi embeddings, overrides, isolates and marks (CVE-2021-42574), BOM,
 * line and paragraph separators.
 */
const UNPRINTABLE = /[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ufeff]/gu;

/**
 * A stored string (file name, alt text) made safe for one line of text shown to a model: each unsafe
 * character is written as a visible `\uXXXX` escape. Names stored before names were normalised, or
 * strings from other sources, cannot break the layout of a result text.
 */
export function printable(s: string): string {
  return s.replace(UNPRINTABLE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
