import type { AssetPage, ImageModelReport, SearchArgs, SearchMode } from '../../shared/schemas/asset.ts';
import type { AssetFilters } from '../db/ports/asset-store.ts';
import { semanticRelevance, visualRelevance } from '../domain/search/calibration.ts';
import type { LexicalColumn } from '../domain/search/query-words.ts';
import { fuse } from '../domain/search/fusion.ts';
import { Ranked, type Fused } from '../domain/search/hit-lists.ts';
import { runLexical, type LexicalResult } from '../domain/search/lexical.ts';
import { correctedQuery } from '../domain/search/lexical-words.ts';
import { queryTerms } from '../domain/search/query-words.ts';
import type { Scope } from '../domain/scope.ts';
import { ServiceError } from '../errors.ts';
import type { LibraryDeps } from './deps.ts';
import { assetTexts, coverQuery, type WordSpace } from './coverage.ts';
import { toAsset } from './present.ts';
import { rankedCacheOf } from '../domain/search/ranked-cache.ts';

/** A vector hit: asset seq, cosine similarity, and its standard score under the space's null model (null when uncalibrated). */
export interface VectorHit {
  seq: number;
  similarity: number;
  z: number | null;
}
/** Hits nearest first, and the standard score a hit needs to be a match (domain/search/calibration.ts). */
export interface VectorResult {
  hits: VectorHit[];
  accept: number;
}

/**
 * KNN over asset embeddings (sqlite-vec), supplied by the enrichment module. A method returns null
 * when its index is unavailable (no embedder, model change in progress): search then degrades.
 */
export interface AssetVectorSearch {
  /**
   * @param head the change-log head read for this request (`AssetStore.searchSnapshot`), handed to the
   * vector partitions so they do not read the log again (read there when absent)
   */
  semantic(scope: Scope, query: string, filters: AssetFilters, k: number, head?: number): Promise<VectorResult | null>;
  similar(scope: Scope, sourceSeq: number, filters: AssetFilters, k: number): Promise<VectorResult | null>;
  /**
   * Load what the workspace's first semantic search would (its text vectors in memory, its stored null
   * model; without embedding a query). @returns false when there is nothing to load (no ready text space, no vectors)
   */
  warm?(scope: Scope): Promise<boolean>;
  /** the image–text model's space, when ATELIER_IMAGE_MODEL is set */
  image?: ImageSpaceSearch;
  /** the text embedder's spelling of a word it has no vector for (`TextEmbedder.spell`); absent when it has none */
  spell?: (word: string) => Promise<string | null>;
  /**
   * The text embedder's words in a scope, for query coverage (assets/coverage.ts): word vectors, the
   * calibrated null of a word's best match among a document's descriptive words, and the measured colours'
   * document shares. null when there is no ready text space or embedder (coverage then uses words and
   * measured colours only, no embeddings, and no colour weights).
   */
  words?(scope: Scope, head?: number): Promise<WordSpace | null>;
}

/**
 * The image–text model's space (enrichment/image-embedding.ts): text queries against the pictures and
 * pictures against pictures, calibrated like `semantic`. A method returns null when the model or its
 * space is not ready: search then runs without this signal.
 */
export interface ImageSpaceSearch {
  text(scope: Scope, query: string, filters: AssetFilters, k: number, head?: number): Promise<VectorResult | null>;
  similar(scope: Scope, sourceSeq: number, filters: AssetFilters, k: number): Promise<VectorResult | null>;
  /** the configured model and where it stands, for `request.image_model` */
  status(): Promise<ImageModelReport>;
}

/** Per document, the stronger of two relevance lists (a document appears once, in first-seen order). */
function strongest(a: { seq: number; relevance: number }[], b: { seq: number; relevance: number }[]): { seq: number; relevance: number }[] {
  const best = new Map<number, number>();
  for (const h of [...a, ...b]) best.set(h.seq, Math.max(best.get(h.seq) ?? 0, h.relevance));
  return [...best].map(([seq, relevance]) => ({ seq, relevance })).sort((x, y) => y.relevance - x.relevance);
}

const FIELD_COLUMN: Partial<Record<SearchMode, LexicalColumn>> = { filename: 'name', alt_text: 'alt_text', tags: 'tags', ocr: 'ocr_text' };
/** Candidates fetched per list before fusion or paging. */
const RANKED_DEPTH = 500;
/** Suggestions are offered when a query has fewer matches than this … */
const FEW_MATCHES = 3;
/** … at most this many, each with at least this relevance. */
const MAX_SUGGESTIONS = 5;
const MIN_SUGGESTION_RELEVANCE = 0.1;

interface Resolved {
  themeId: string;
}

/** The matches of a query (and the non-matching candidates), before paging. */
export interface AssetMatches {
  ranked: Ranked;
  /** matches beyond `ranked` (complete exact matches not fetched: deep result sets) */
  unfetched: number;
  mode: SearchMode;
  degradedFrom: SearchMode | null;
  match: AssetPage['request']['match'];
  lexical: LexicalResult | null;
  /** the query as spelt against the embedder's vocabulary (`AssetVectorSearch.spell`), null when it was not changed */
  spelledQuery: string | null;
}

/**
 * Rank a query's candidates and decide which match (shared by search, select and the picker's facets,
 * so counts agree). Exact-field modes and the lexical half of `all` run the lexical planner
 * (domain/search/lexical.ts) — typos everywhere, WordNet concepts and operator synonyms in `all` only;
 * `semantic` and `all` add calibrated embedding matches; `similar` calibrated visual matches. In `all`
 * the text side also counts the query's coverage by each candidate's descriptive words (word embeddings
 * under a calibrated null) and measured colours, and a meaning match counts only when that coverage
 * corroborates it (assets/coverage.ts); `semantic`, asked for meaning alone, keeps every calibrated hit. When the
 * vector index is unavailable, `semantic` and `all` return lexical results with `degradedFrom` set.
 *
 * Spelling: the library's own vocabulary corrects first (the planner's typos, `lexical.corrections`).
 * In `all`, the query words the planner then matched nowhere (no document of the workspace holds the
 * word, a typo correction, a concept or a synonym of it) are spelt against the text embedder's
 * word-vector vocabulary (`AssetVectorSearch.spell`, domain/search/spelling.ts: one edit away, the most
 * frequent known word wins); when one changes, the lexical planner runs again on the corrected text, and
 * the semantic and image–text searches take that text too. `semantic` has no lexical pass to ask, so it
 * offers all the query's words (`queryTerms`) to `spell` (a word the vocabulary knows stays as it is);
 * if it degrades, its lexical pass runs on the spelt text. Exact-field modes and `similar` are not
 * spelt, nor is anything when the embedder has no `spell` (only closed-vocabulary word vectors have
 * one). The spelt text is returned as `spelledQuery` (null when nothing changed); `searchAssets` reports
 * it, with the planner's own corrections applied on top, as `request.corrected_query`.
 * @param deepest how far the caller pages (offset + limit + 1): complete exact matches are fetched that deep
 * @param head the change-log head read for this request (`searchSnapshot`), handed to the lexical index
 * @throws ServiceError not_found (args.similar_to_asset_id) | unsupported (args.mode)
 */
export async function matchAssets(
  deps: LibraryDeps,
  scope: Scope,
  args: Pick<SearchArgs, 'query' | 'mode' | 'similar_to_asset_id'>,
  filters: AssetFilters,
  vectors: AssetVectorSearch | null,
  deepest = 0,
  head?: number,
): Promise<AssetMatches> {
  const query = args.query && args.query.length > 0 ? args.query : undefined;
  let mode: SearchMode = args.mode;
  if (mode === 'similar') {
    const source = await deps.assets.byId(scope, args.similar_to_asset_id!);
    if (!source)
      throw new ServiceError('not_found', 'args.similar_to_asset_id', `asset ${args.similar_to_asset_id} does not exist in this workspace`);
    const similarFilters = { ...filters, excludeSeq: source.seq };
    const [r, img] = vectors
      ? await Promise.all([
          vectors.similar(scope, source.seq, similarFilters, RANKED_DEPTH),
          vectors.image?.similar(scope, source.seq, similarFilters, RANKED_DEPTH) ?? null,
        ])
      : [null, null];
    if (!r)
      throw new ServiceError(
        'unsupported',
        'args.mode',
        'similar search is unavailable: visual embeddings are not computed on this server yet',
      );
    // image embeddings, when present, find pictures of the same things; the colour-and-layout descriptor
    // still decides near-duplicates (its cosine rule); cosine 0 keeps an image hit off that rule
    const descriptor = r.hits.map((h) => ({ seq: h.seq, relevance: visualRelevance(h.similarity, h.z, r.accept) }));
    const pictures = img ? img.hits.map((h) => ({ seq: h.seq, relevance: visualRelevance(0, h.z, img.accept) })) : [];
    const ranked = fuse(null, strongest(descriptor, pictures), 'visual');
    return {
      ranked,
      unfetched: 0,
      mode,
      degradedFrom: null,
      match: ranked.matches > 0 ? 'vector' : 'none',
      lexical: null,
      spelledQuery: null,
    };
  }
  if (!query) return { ranked: Ranked.EMPTY, unfetched: 0, mode, degradedFrom: null, match: 'browse', lexical: null, spelledQuery: null };

  const column = FIELD_COLUMN[mode] ?? null;
  const lexicalOf = async (text: string): Promise<LexicalResult> =>
    runLexical(
      text,
      deps.lexical.assets(scope, filters, head),
      {
        column,
        thesaurus: column ? null : await deps.thesaurus(),
        typos: true,
        synonyms: column ? [] : await deps.synonyms.forAssets(scope, head),
        depth: RANKED_DEPTH,
        conceptTexts: assetTexts(deps, scope),
      },
      deepest,
    );
  let text = query;
  let lexical: LexicalResult | null = null;
  if (mode === 'all') {
    // The library's own vocabulary corrects first (the planner's typos); a word it leaves unmatched is
    // spelt against the embedder's, and the whole query runs again as corrected
    lexical = await lexicalOf(query);
    const spelled = vectors?.spell ? await spellWords(vectors.spell, unmatchedWords(lexical)) : [];
    if (spelled.length) {
      text = correctedQuery(query, spelled)!;
      lexical = await lexicalOf(text);
    }
  } else if (mode === 'semantic' && vectors?.spell) {
    const spelled = await spellWords(vectors.spell, queryTerms(query));
    if (spelled.length) text = correctedQuery(query, spelled)!;
  }
  let semantic: VectorResult | null = null;
  let image: VectorResult | null = null;
  let degradedFrom: SearchMode | null = null;
  if (mode === 'semantic' || mode === 'all') {
    if (!vectors && mode === 'semantic') {
      throw new ServiceError(
        'unsupported',
        'args.mode',
        'semantic search is unavailable: no embedder is configured on this server; use mode all or an exact-field mode',
      );
    }
    [semantic, image] = vectors
      ? await Promise.all([
          vectors.semantic(scope, text, filters, RANKED_DEPTH, head),
          vectors.image?.text(scope, text, filters, RANKED_DEPTH, head) ?? null,
        ])
      : [null, null];
    // The vector index exists but cannot answer now (embedder failing, re-embedding): degrade to BM25.
    if (!semantic) {
      if (vectors) degradedFrom = mode;
      mode = 'all';
    }
  }
  if (mode !== 'semantic' && !lexical) lexical = await lexicalOf(text);
  const vector = semantic
    ? semantic.hits.map((h) => ({ seq: h.seq, relevance: h.z === null ? 0 : semanticRelevance(h.z, semantic.accept) }))
    : null;
  const pictures = image
    ? image.hits.map((h) => ({ seq: h.seq, relevance: h.z === null ? 0 : semanticRelevance(h.z, image.accept) }))
    : null;
  // mode all: the query's coverage by each candidate's own words and measured colours (assets/coverage.ts)
  // widens the text side and decides whether a meaning match is corroborated
  const covered =
    mode === 'all' && lexical
      ? await coverQuery(deps, scope, lexical, semantic, semantic ? ((await vectors?.words?.(scope, head)) ?? null) : null)
      : null;
  const agrees = covered ? (seq: number) => covered.agrees(seq) : null;
  const ranked = fuse(covered?.hits ?? lexical?.hits ?? null, vector, 'meaning', pictures, agrees);
  let match: AssetPage['request']['match'] = 'none';
  if (ranked.matches > 0) {
    if (mode === 'semantic') match = 'vector';
    else if (mode === 'all' && (semantic || image)) match = 'hybrid';
    else match = lexical?.hits.someComplete(0.5) ? 'all_terms' : 'any_term';
  }
  const unfetched = lexical ? Math.max(0, lexical.exactTotal - lexical.exactFetched) : 0;
  return { ranked, unfetched, mode, degradedFrom, match, lexical, spelledQuery: text === query ? null : text };
}

/**
 * `svc_asset_library` `search` (spec §4.1) under the honest results contract: `assets` and `total`
 * hold matches only, each with a relevance in [0, 1] and how it matched; when a query matches nothing
 * (or very little) the nearest non-matches come back apart, as `suggestions`, on the first page.
 * `request.indexing` ({ pending, total } assets of the workspace) is there while enrichment has not
 * finished analysing some of them: a no-match then may only mean "not analysed yet".
 * @param at random access for panels: the page starting at `offset` within the cursor's snapshot
 * @throws ServiceError invalid_argument (args.cursor) | not_found (args.similar_to_asset_id) | unsupported
 */
export async function searchAssets(
  deps: LibraryDeps,
  scope: Scope,
  args: SearchArgs,
  theme: Resolved,
  vectors: AssetVectorSearch | null,
  at?: { offset: number },
): Promise<AssetPage> {
  const { assets, cursors, urls } = deps;
  const query = args.query && args.query.length > 0 ? args.query : undefined;
  // frozen: its stable JSON is computed once for the ranked-pass cache and the cursor (domain/search/cursor.ts)
  const cursorKey = Object.freeze({
    t: scope.tenantId,
    w: scope.workspaceId,
    th: theme.themeId,
    q: query ?? null,
    m: args.mode,
    k: args.kind ?? null,
    c: args.category ?? null,
    s: args.subtype ?? null,
    o: args.orientation ?? null,
    sim: args.similar_to_asset_id ?? null,
  });
  // a new result set reads its snapshot bound and the change-log head at once; a later page, the head alone
  const start = args.cursor ? null : await assets.searchSnapshot(scope);
  const decoded = start ? { offset: 0, snapshot: start.maxSeq } : cursors.decode(cursorKey, args.cursor!);
  const head = start ? start.changeHead : await assets.changeHead();
  // `at` (the panel's random access) keeps the cursor's verified snapshot and moves the offset.
  const state = at ? { ...decoded, offset: at.offset } : decoded;
  const filters: AssetFilters = {
    kind: args.kind,
    category: args.category,
    subtype: args.subtype,
    orientation: args.orientation,
    maxSeq: state.snapshot,
  };
  const limit = args.limit;

  let page: { seq: number; relevance: number | null; matchedBy: Fused['matchedBy'] | null }[];
  let total: number;
  let suggestions: Fused[] = [];
  let result: AssetMatches;
  if (!query && args.mode !== 'similar') {
    const r = await assets.browse(scope, filters, state.offset, limit + 1);
    page = r.rows.map((row) => ({ seq: row.seq, relevance: null, matchedBy: null }));
    total = r.total;
    result = {
      ranked: Ranked.EMPTY,
      unfetched: 0,
      mode: args.mode,
      degradedFrom: null,
      match: 'browse',
      lexical: null,
      spelledQuery: null,
    };
  } else {
    // One ranked pass per result set: the first page ranks (and stores the pass), later pages of the
    // same cursor snapshot reuse it while nothing in the change log moved.
    const cache = rankedCacheOf<AssetMatches>(assets);
    const rank = () => matchAssets(deps, scope, args, filters, vectors, state.offset + limit + 1, head);
    const deepEnough = (r: AssetMatches) => r.unfetched === 0 || r.ranked.matches > state.offset + limit;
    const first = state.offset === 0 && !args.cursor;
    result = first ? await rank() : await cache.get(cursorKey, state.snapshot, head, rank);
    if (!deepEnough(result)) result = await rank();
    if (first) cache.put(cursorKey, state.snapshot, head, result);
    total = result.ranked.matches + result.unfetched;
    page = result.ranked.matchRange(state.offset, state.offset + limit + 1);
    if (state.offset === 0 && result.ranked.matches < FEW_MATCHES) {
      // matches and suggestions together stay within `limit` (issue 34)
      const room = Math.max(0, limit - Math.min(result.ranked.matches, limit));
      suggestions = room > 0 ? result.ranked.suggestions(MIN_SUGGESTION_RELEVANCE, Math.min(MAX_SUGGESTIONS, room)) : [];
    }
  }
  const hasMore = page.length > limit || state.offset + limit < total;
  const pageRows = page.slice(0, limit);
  // hydration: the page's cards (with their thumbnails) in one query
  const shown = [...pageRows.map((p) => p.seq), ...suggestions.map((s) => s.seq)];
  // with the index state: how much of the workspace enrichment has yet to analyse (one indexed count)
  const [shownCards, backlog] = await Promise.all([assets.cardsBySeqs(scope, shown), assets.enrichmentBacklog(scope)]);
  const cards = new Map(shownCards.map((c) => [c.seq, c]));
  const present = (p: { seq: number; relevance: number | null; matchedBy: Fused['matchedBy'] | null }) => {
    const card = cards.get(p.seq);
    return card ? [toAsset(card, urls, { relevance: p.relevance, matchedBy: p.matchedBy })] : [];
  };
  return {
    assets: pageRows.flatMap(present),
    total,
    total_is_estimate: result.lexical?.exactEstimated ?? false,
    suggestions: suggestions.flatMap(present),
    next_cursor: hasMore ? cursors.encode(cursorKey, { offset: state.offset + limit, snapshot: state.snapshot }) : null,
    has_more: hasMore,
    request: {
      query: query ?? null,
      mode: result.mode,
      kind: args.kind ?? null,
      category: args.category ?? null,
      subtype: args.subtype ?? null,
      orientation: args.orientation ?? null,
      limit,
      theme_id: theme.themeId,
      workspace_id: scope.workspaceId,
      similar_to_asset_id: args.similar_to_asset_id ?? null,
      degraded_from: result.degradedFrom,
      match: result.match,
      corrected_query:
        query && result.lexical
          ? (correctedQuery(result.spelledQuery ?? query, result.lexical.corrections) ?? result.spelledQuery)
          : result.spelledQuery,
      expanded_terms: result.lexical?.expanded ?? [],
      ...(vectors?.image ? { image_model: await vectors.image.status() } : {}),
      ...(backlog.pending > 0 ? { indexing: backlog } : {}),
    },
  };
}

/** The query words no document of the scope matches, itself or through a typo, concept or synonym. */
function unmatchedWords(lexical: LexicalResult): string[] {
  return lexical.termWords.filter((_, i) => lexical.counts[i] === 0).map((t) => t.word);
}

/** The words `spell` corrects, with their corrections (`{ from, to }`, as the planner reports its own). */
async function spellWords(spell: (word: string) => Promise<string | null>, words: string[]): Promise<{ from: string; to: string }[]> {
  const out: { from: string; to: string }[] = [];
  for (const from of words) {
    const to = await spell(from);
    if (to) out.push({ from, to });
  }
  return out;
}
