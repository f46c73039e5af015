/**
 * Fusion of lexical and vector evidence into one relevance per document (pure), for asset search
 * (mode all) and list_products (hybrid).
 *
 * Both inputs are already calibrated to [0, 1] with 0.5 as the least a match has: lexical relevance
 * (domain/lexical.ts) and semantic relevance from the standard score under the space's null model
 * (domain/calibration.ts, capped at SEMANTIC_MAX = 0.74). The fused relevance is
 * max(lexical, semantic) + 0.15 · min(lexical, semantic), capped at 1, so evidence from both sides
 * ranks a document above either side alone, while a complete lexical match (≥ 0.75) always ranks
 * above a meaning-only one: fusion never demotes a strong lexical match below a semantic-only hit.
 * (This replaces rank fusion (RRF), whose scores say nothing about whether a hit matches.)
 * A document is a match when either side accepts it; otherwise it is a suggestion candidate and its
 * relevance is kept below 0.5. Ties keep lexical order (BM25), then semantic order.
 */
import type { MatchKind } from '../../shared/schemas/asset.ts';
import { SEMANTIC_MAX } from './calibration.ts';
import { LEXICAL_MATCH, type LexicalHit } from './lexical.ts';

/** Lowest relevance of a match on either side. */
export const MATCH = 0.5;
/** Weight of the weaker side's evidence. */
const SUPPORT = 0.15;

/** A document with its fused relevance. */
export interface Fused {
  seq: number;
  relevance: number;
  matchedBy: MatchKind[];
  match: boolean;
}

/** A vector hit with its calibrated relevance (0.5 = accepted), nearest first. */
export interface VectorRelevance {
  seq: number;
  relevance: number;
}

/**
 * Fuse a lexical list and a vector list (either may be absent).
 * @param vectorKind how a vector match is reported (`meaning` for text embeddings, `visual` for `similar`)
 * @returns every document of either list, matches and non-matches, best first
 */
export function fuse(
  lexical: LexicalHit[] | null,
  vector: VectorRelevance[] | null,
  vectorKind: 'meaning' | 'visual' = 'meaning',
): Fused[] {
  // position of each document in either list (the last one when a list repeats a document)
  const lex = new Map<number, number>();
  lexical?.forEach((h, i) => lex.set(h.seq, i));
  const vec = new Map<number, number>();
  vector?.forEach((h, i) => vec.set(h.seq, i));
  const seqs = [...lex.keys()];
  for (const seq of vec.keys()) if (!lex.has(seq)) seqs.push(seq);
  const out: Fused[] = [];
  const lexOrder = new Float64Array(seqs.length);
  const vecOrder = new Float64Array(seqs.length);
  seqs.forEach((seq, j) => {
    const li = lex.get(seq);
    const vi = vec.get(seq);
    const l = li === undefined ? undefined : lexical![li];
    const v = vi === undefined ? undefined : vector![vi];
    const a = l?.relevance ?? 0;
    const b = Math.min(SEMANTIC_MAX, v?.relevance ?? 0);
    const match = a >= LEXICAL_MATCH || b >= MATCH;
    let relevance = Math.min(1, Math.max(a, b) + SUPPORT * Math.min(a, b));
    if (vectorKind === 'visual') relevance = v?.relevance ?? 0;
    if (!match) relevance = Math.min(relevance, MATCH - 0.01);
    const matchedBy: MatchKind[] = l && a > 0 ? [...l.matchedBy] : [];
    if (v && (b >= MATCH || (!match && b > 0))) matchedBy.push(vectorKind);
    out.push({ seq, relevance: Math.round(relevance * 1000) / 1000, matchedBy, match });
    lexOrder[j] = li ?? Infinity;
    vecOrder[j] = vi ?? Infinity;
  });
  const order = out.map((_, j) => j);
  order.sort((x, y) => {
    const fx = out[x]!;
    const fy = out[y]!;
    return Number(fy.match) - Number(fx.match) || fy.relevance - fx.relevance || lexOrder[x]! - lexOrder[y]! || vecOrder[x]! - vecOrder[y]!;
  });
  return order.map((j) => out[j]!);
}
