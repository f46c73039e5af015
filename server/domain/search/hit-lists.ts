/**
 * Ranked hit lists in parallel typed arrays (pure): the lexical planner's candidates (`LexicalHits`,
 * domain/search/lexical.ts) and the fused ranking of a query (`Ranked`, domain/search/fusion.ts). A ranked pass holds
 * hundreds of candidates and is kept per cursor snapshot (domain/search/ranked-cache.ts), while a page shows
 * twenty: entries are objects only when read (`at`, `matchRange`, `suggestions`), so a pass costs a few
 * arrays instead of an object and a `matched_by` array per candidate.
 */
import type { MatchKind } from '../../../shared/schemas/asset.ts';

/** How a hit matched, as reported to the agent (shared/schemas `matched_by`, lexical part). */
export type LexicalMatchedBy = 'text' | 'typo' | 'concept';

/** A lexical hit with its relevance in [0, 1]. */
export interface LexicalHit {
  seq: number;
  relevance: number;
  matchedBy: LexicalMatchedBy[];
  /** every query word matched by some class */
  complete: boolean;
}

/** A document with its fused relevance. */
export interface Fused {
  seq: number;
  relevance: number;
  matchedBy: MatchKind[];
  match: boolean;
}

/** `matched_by` kinds by code − 1 (a packed list holds codes 1–5, three bits each, first kind lowest). */
const KINDS: readonly MatchKind[] = ['text', 'typo', 'concept', 'meaning', 'visual'];
const CODE = new Map<MatchKind, number>(KINDS.map((k, i) => [k, i + 1]));

/** A `matched_by` list (distinct kinds, at most five) packed in one number, order kept. */
export function packMatchedBy(kinds: readonly MatchKind[]): number {
  let code = 0;
  for (let i = kinds.length - 1; i >= 0; i--) code = code * 8 + CODE.get(kinds[i]!)!;
  return code;
}

/** The list `packMatchedBy` packed. */
export function unpackMatchedBy(code: number): MatchKind[] {
  const out: MatchKind[] = [];
  for (let c = code; c > 0; c = Math.floor(c / 8)) out.push(KINDS[(c % 8) - 1]!);
  return out;
}

/** `kind` appended to a packed list (the list unchanged when it holds it already). */
export function appendMatchedBy(code: number, kind: MatchKind): number {
  let scale = 1;
  for (let c = code; c > 0; c = Math.floor(c / 8)) {
    if (c % 8 === CODE.get(kind)) return code;
    scale *= 8;
  }
  return code + scale * CODE.get(kind)!;
}

/**
 * A relevance kept below `match`: one at or above it is mapped, in order, into [match − 0.02, match − 0.01],
 * so a document that may not count as a match stays a suggestion ranked as before; one below is unchanged.
 * @param relevance in [0, 1]
 * @param match the least relevance of a match, < 1
 */
export function belowMatch(relevance: number, match: number): number {
  return relevance >= match ? match - 0.02 + (0.01 * (relevance - match)) / (1 - match) : relevance;
}

/**
 * The any-term fallback, only as a fallback: documents matching part of the query count as matches only
 * when no document matches all of it, as Algolia drops query words only when the whole query finds
 * nothing (`removeWordsIfNoResults`). When some complete candidate reaches `match`, the relevance of every
 * incomplete one is kept below it in place (`belowMatch`): it stays a suggestion ranked as before, and the
 * meaning side of a fusion may still accept it.
 * @param relevance per candidate, in [0, 1]
 * @param complete per candidate, 1 when every query word matched
 */
export function capPartialMatches(relevance: Float64Array, complete: Uint8Array, match: number): void {
  let some = false;
  for (let j = 0; j < relevance.length && !some; j++) some = complete[j] === 1 && relevance[j]! >= match;
  if (!some) return;
  for (let j = 0; j < relevance.length; j++) if (complete[j] === 0) relevance[j] = belowMatch(relevance[j]!, match);
}

/** Lexical candidates best first (distinct seqs): matches and non-matches, `relevance ≥ LEXICAL_MATCH` matching. */
export class LexicalHits {
  constructor(
    readonly seq: Float64Array,
    readonly relevance: Float64Array,
    /** `matched_by` of each, packed (`packMatchedBy`) */
    readonly by: Uint16Array,
    /** 1 when every query word matched by some class */
    readonly complete: Uint8Array,
  ) {}

  static readonly EMPTY = new LexicalHits(new Float64Array(0), new Float64Array(0), new Uint16Array(0), new Uint8Array(0));

  /** Hits from objects, best first. @throws Error when a seq repeats */
  static of(hits: readonly LexicalHit[]): LexicalHits {
    if (new Set(hits.map((h) => h.seq)).size !== hits.length) throw new Error('LexicalHits.of: seqs must be distinct');
    return new LexicalHits(
      Float64Array.from(hits, (h) => h.seq),
      Float64Array.from(hits, (h) => h.relevance),
      Uint16Array.from(hits, (h) => packMatchedBy(h.matchedBy)),
      Uint8Array.from(hits, (h) => (h.complete ? 1 : 0)),
    );
  }

  get length(): number {
    return this.seq.length;
  }

  at(i: number): LexicalHit {
    return {
      seq: this.seq[i]!,
      relevance: this.relevance[i]!,
      matchedBy: unpackMatchedBy(this.by[i]!) as LexicalMatchedBy[],
      complete: this.complete[i] === 1,
    };
  }

  toArray(): LexicalHit[] {
    return Array.from({ length: this.length }, (_, i) => this.at(i));
  }

  /** Whether some hit matched every query word at least at `min` relevance. */
  someComplete(min: number): boolean {
    for (let i = 0; i < this.length; i++) if (this.complete[i] === 1 && this.relevance[i]! >= min) return true;
    return false;
  }
}

/** A query's fused ranking, best first: the `matches` first entries match, the rest are suggestion candidates. */
export class Ranked {
  constructor(
    readonly seq: Float64Array,
    readonly relevance: Float64Array,
    /** `matched_by` of each, packed (`packMatchedBy`) */
    readonly by: Uint16Array,
    readonly matches: number,
  ) {}

  static readonly EMPTY = new Ranked(new Float64Array(0), new Float64Array(0), new Uint16Array(0), 0);

  /** A ranking from objects in rank order (matches are moved first, each part keeping its order). */
  static of(list: readonly Fused[]): Ranked {
    const ordered = [...list.filter((f) => f.match), ...list.filter((f) => !f.match)];
    return new Ranked(
      Float64Array.from(ordered, (f) => f.seq),
      Float64Array.from(ordered, (f) => f.relevance),
      Uint16Array.from(ordered, (f) => packMatchedBy(f.matchedBy)),
      list.filter((f) => f.match).length,
    );
  }

  get length(): number {
    return this.seq.length;
  }

  at(i: number): Fused {
    return { seq: this.seq[i]!, relevance: this.relevance[i]!, matchedBy: unpackMatchedBy(this.by[i]!), match: i < this.matches };
  }

  /** Matches `start` to `end` (exclusive, clamped to the matches). */
  matchRange(start: number, end: number): Fused[] {
    const out: Fused[] = [];
    for (let i = Math.max(0, start); i < Math.min(end, this.matches); i++) out.push(this.at(i));
    return out;
  }

  /** Every match's seq, best first. */
  matchSeqs(): number[] {
    return Array.from(this.seq.subarray(0, this.matches));
  }

  /** The best `max` non-matches with relevance ≥ `min`. */
  suggestions(min: number, max: number): Fused[] {
    const out: Fused[] = [];
    for (let i = this.matches; i < this.length && out.length < max; i++) if (this.relevance[i]! >= min) out.push(this.at(i));
    return out;
  }

  toArray(): Fused[] {
    return Array.from({ length: this.length }, (_, i) => this.at(i));
  }
}
