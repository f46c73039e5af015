/**
 * Fusion of lexical and vector evidence into one relevance per document (pure), for asset search
 * (mode all) and list_products (hybrid).
 *
 * Both inputs are already calibrated to [0, 1] with 0.5 as the least a match has: lexical relevance
 * (domain/search/lexical.ts) and semantic relevance from the standard score under the space's null model
 * (domain/search/calibration.ts, capped at SEMANTIC_MAX = 0.74). The fused relevance is
 * max(lexical, semantic) + 0.15 · min(lexical, semantic), capped at 1, so evidence from both sides
 * ranks a document above either side alone, while a complete lexical match (≥ 0.75) always ranks
 * above a meaning-only one: fusion never demotes a strong lexical match below a semantic-only hit.
 * (This replaces rank fusion (RRF), whose scores say nothing about whether a hit matches.)
 * A document is a match when either side accepts it; otherwise it is a suggestion candidate and its
 * relevance is kept below 0.5. Ties keep lexical order (BM25), then semantic order.
 * A third list, the image–text model's calibrated matches of the query against the pictures
 * (enrichment/image-embedding.ts), joins the semantic side: a document's vector evidence is the
 * stronger of the two (both calibrated the same way, both capped at SEMANTIC_MAX), reported as
 * `visual` when the image list accepts it.
 * Corroboration (issue 33): with `agrees`, a document that only the text-embedding list accepts (no
 * lexical match, no image match) is a match only when `agrees` says another signal backs it (some of the
 * query's words in its text, its type, tags or collections for a product, catalog/agreement.ts; the
 * coverage of the query by its words and measured colours for an asset, assets/coverage.ts); otherwise it
 * stays a suggestion candidate, its relevance kept below 0.5, reported as `meaning`.
 */
import { SEMANTIC_MAX } from './calibration.ts';
import { appendMatchedBy, Ranked, type LexicalHits } from './hit-lists.ts';
import { stableDescending } from './stable-order.ts';
import { LEXICAL_MATCH } from './lexical.ts';

/** Lowest relevance of a match on either side. */
export const MATCH = 0.5;
/** Weight of the weaker side's evidence. */
const SUPPORT = 0.15;

/** A vector hit with its calibrated relevance (0.5 = accepted), nearest first. */
export interface VectorRelevance {
  seq: number;
  relevance: number;
}

/**
 * Fuse a lexical list and a vector list (either may be absent; lexical seqs are distinct, as
 * `runLexical` makes them).
 * @param vectorKind how a vector match is reported (`meaning` for text embeddings, `visual` for `similar`)
 * @param image the image–text model's calibrated hits of the query (absent: no image model), reported as `visual`
 * @param agrees whether a meaning-only document is corroborated (absent: meaning alone suffices)
 * @returns every document of either list, matches first, best first (relevance rounded to 0.001)
 */
export function fuse(
  lexical: LexicalHits | null,
  vector: VectorRelevance[] | null,
  vectorKind: 'meaning' | 'visual' = 'meaning',
  image: VectorRelevance[] | null = null,
  agrees: ((seq: number) => boolean) | null = null,
): Ranked {
  const nl = lexical?.length ?? 0;
  // the lexical documents in their order, then the vector-only ones in theirs; each document's place in
  // the vector list (the last one when the list repeats a document)
  const lexAt = new Map<number, number>();
  const vecAt = new Map<number, number>();
  const imgAt = new Map<number, number>();
  const extra: number[] = [];
  if (vector || image) {
    for (let i = 0; i < nl; i++) lexAt.set(lexical!.seq[i]!, i);
    vector?.forEach((h, i) => {
      if (!vecAt.has(h.seq) && !lexAt.has(h.seq)) extra.push(h.seq);
      vecAt.set(h.seq, i);
    });
    image?.forEach((h, i) => {
      if (!imgAt.has(h.seq) && !vecAt.has(h.seq) && !lexAt.has(h.seq)) extra.push(h.seq);
      imgAt.set(h.seq, i);
    });
  }
  const n = nl + extra.length;
  const seq = new Float64Array(n);
  const relevance = new Float64Array(n);
  const by = new Uint16Array(n);
  const match = new Uint8Array(n);
  for (let j = 0; j < n; j++) {
    const s = j < nl ? lexical!.seq[j]! : extra[j - nl]!;
    const vi = vector ? vecAt.get(s) : undefined;
    const v = vi === undefined ? undefined : vector![vi]!;
    const ii = image ? imgAt.get(s) : undefined;
    const c = ii === undefined ? 0 : Math.min(SEMANTIC_MAX, image![ii]!.relevance);
    const a = j < nl ? lexical!.relevance[j]! : 0;
    const bText = Math.min(SEMANTIC_MAX, v?.relevance ?? 0);
    const b = Math.max(bText, c);
    const meaningAlone = a < LEXICAL_MATCH && c < MATCH && bText >= MATCH;
    const isMatch = a >= LEXICAL_MATCH || c >= MATCH || (bText >= MATCH && (!meaningAlone || !agrees || agrees(s)));
    let r = Math.min(1, Math.max(a, b) + SUPPORT * Math.min(a, b));
    if (vectorKind === 'visual') r = v?.relevance ?? 0;
    if (!isMatch) r = Math.min(r, MATCH - 0.01);
    let code = j < nl && a > 0 ? lexical!.by[j]! : 0;
    if (v && (bText >= MATCH || (!isMatch && bText > 0))) code = appendMatchedBy(code, vectorKind);
    if (c >= MATCH || (!isMatch && c > 0 && c >= bText)) code = appendMatchedBy(code, 'visual');
    seq[j] = s;
    relevance[j] = Math.round(r * 1000) / 1000;
    by[j] = code;
    match[j] = isMatch ? 1 : 0;
  }
  // matches first (a match's relevance is at least 0.5 and a non-match's at most 0.49, but for the
  // visual kind a key is safer than the rule), then by relevance; ties keep lexical order, then vector
  // order: position order. Adding 2 keeps relevances (multiples of 0.001) distinct and ordered.
  const key = new Float64Array(n);
  for (let j = 0; j < n; j++) key[j] = relevance[j]! + 2 * match[j]!;
  const order = stableDescending(key);
  const out = { seq: new Float64Array(n), relevance: new Float64Array(n), by: new Uint16Array(n) };
  let matches = 0;
  for (let i = 0; i < n; i++) {
    const j = order[i]!;
    out.seq[i] = seq[j]!;
    out.relevance[i] = relevance[j]!;
    out.by[i] = by[j]!;
    matches += match[j]!;
  }
  return new Ranked(out.seq, out.relevance, out.by, matches);
}
