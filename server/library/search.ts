import type { AssetPage, SearchArgs, SearchMode } from '../../shared/schemas/asset.ts';
import type { AssetFilters, AssetRow } from '../db/assets.ts';
import { buildMatch, queryTerms, type FtsColumn } from '../domain/fts-query.ts';
import { reciprocalRankFusion } from '../domain/rrf.ts';
import type { Scope } from '../domain/scope.ts';
import { ServiceError } from '../errors.ts';
import type { LibraryDeps } from './deps.ts';
import { toAsset } from './present.ts';

/** A ranked hit of a vector search: asset row id and a similarity in [0, 1] (higher is closer). */
export interface VectorHit { seq: number; similarity: number }

/**
 * KNN over asset embeddings (sqlite-vec), supplied by the enrichment module. A method returns null
 * when its index is unavailable (no embedder, model change in progress): search then degrades.
 */
export interface AssetVectorSearch {
  semantic(scope: Scope, query: string, filters: AssetFilters, k: number): Promise<VectorHit[] | null>;
  similar(scope: Scope, sourceSeq: number, filters: AssetFilters, k: number): Promise<VectorHit[] | null>;
}

const FIELD_COLUMN: Partial<Record<SearchMode, FtsColumn>> = { filename: 'name', alt_text: 'alt_text', tags: 'tags', ocr: 'ocr_text' };
/** Candidates fetched per list before fusion or paging of vector results. */
const RANKED_DEPTH = 500;

interface Resolved { themeId: string }

/**
 * `svc_asset_library` `search` (spec §4.1). Exact-field modes and the lexical half of `all` use FTS5
 * with BM25; all query terms are required, falling back to any term when that finds nothing (the
 * echo's `match` says which). `semantic`/`similar` use the vector index; when it is unavailable,
 * `semantic` and `all` return lexical results with `request.degraded_from` set.
 * @param at random access for panels: the page starting at `offset` within the cursor's snapshot
 * @throws ServiceError invalid_argument (args.cursor) | not_found (args.similar_to_asset_id) | unsupported
 */
export async function searchAssets(deps: LibraryDeps, scope: Scope, args: SearchArgs, theme: Resolved, vectors: AssetVectorSearch | null, at?: { offset: number }): Promise<AssetPage> {
  const { assets, cursors, urls } = deps;
  const query = args.query && args.query.length > 0 ? args.query : undefined;
  const cursorKey = {
    t: scope.tenantId, w: scope.workspaceId, th: theme.themeId, q: query ?? null, m: args.mode,
    k: args.kind ?? null, c: args.category ?? null, s: args.subtype ?? null, o: args.orientation ?? null, sim: args.similar_to_asset_id ?? null,
  };
  const decoded = args.cursor ? cursors.decode(cursorKey, args.cursor) : { offset: 0, snapshot: assets.maxSeq(scope) };
  // `at` (the panel's random access) keeps the cursor's verified snapshot and moves the offset.
  const state = at ? { ...decoded, offset: at.offset } : decoded;
  const filters: AssetFilters = { kind: args.kind, category: args.category, subtype: args.subtype, orientation: args.orientation, maxSeq: state.snapshot };
  const limit = args.limit;

  let mode: SearchMode = args.mode;
  let degradedFrom: SearchMode | null = null;
  let match: AssetPage['request']['match'] = 'browse';
  let rows: AssetRow[] = [];
  let scores: (number | null)[] = [];
  let total = 0;
  /** per-seq provenance of vector and hybrid hits (similarity, and for hybrid which lists found it) */
  let why: Map<number, { similarity: number | null; matchedBy: ('lexical' | 'semantic')[] | null }> | null = null;

  const lexical = (column: FtsColumn | null): boolean => {
    const terms = queryTerms(query ?? '');
    for (const op of ['AND', 'OR'] as const) {
      if (op === 'OR' && terms.length < 2) break;
      const expr = buildMatch(terms, op, column);
      if (!expr) break;
      const r = assets.searchFts(scope, expr, filters, state.offset, limit + 1);
      if (r.total > 0 || op === 'OR') {
        rows = r.rows;
        scores = r.rows.map((x) => x.score);
        total = r.total;
        match = op === 'AND' ? 'all_terms' : 'any_term';
        return true;
      }
    }
    total = 0;
    match = 'all_terms';
    return true;
  };

  const fromRanked = (ranked: { seq: number; score: number }[]): void => {
    total = ranked.length;
    const page = ranked.slice(state.offset, state.offset + limit + 1);
    rows = assets.bySeqs(scope, page.map((p) => p.seq));
    const bySeq = new Map(page.map((p) => [p.seq, p.score]));
    scores = rows.map((r) => bySeq.get(r.seq) ?? null);
  };

  if (mode === 'similar') {
    const source = assets.byId(scope, args.similar_to_asset_id!);
    if (!source) throw new ServiceError('not_found', 'args.similar_to_asset_id', `asset ${args.similar_to_asset_id} does not exist in this workspace`);
    const hits = vectors ? await vectors.similar(scope, source.seq, { ...filters, excludeSeq: source.seq }, RANKED_DEPTH) : null;
    if (!hits) throw new ServiceError('unsupported', 'args.mode', 'similar search is unavailable: visual embeddings are not computed on this server yet');
    match = 'vector';
    why = new Map(hits.map((h) => [h.seq, { similarity: h.similarity, matchedBy: null }]));
    fromRanked(hits.map((h) => ({ seq: h.seq, score: h.similarity })));
  } else if (!query) {
    const r = assets.browse(scope, filters, state.offset, limit + 1);
    rows = r.rows;
    scores = r.rows.map(() => null);
    total = r.total;
    match = 'browse';
  } else if (FIELD_COLUMN[mode]) {
    lexical(FIELD_COLUMN[mode]!);
  } else {
    // 'semantic' or 'all'
    const hits = vectors ? await vectors.semantic(scope, query, filters, RANKED_DEPTH) : null;
    if (!vectors && mode === 'semantic') {
      throw new ServiceError('unsupported', 'args.mode', 'semantic search is unavailable: no embedder is configured on this server; use mode all or an exact-field mode');
    }
    if (!hits) {
      // The vector index exists but cannot answer now (embedder failing, re-embedding): degrade to BM25.
      if (vectors) degradedFrom = mode;
      mode = 'all';
      lexical(null);
    } else if (mode === 'semantic') {
      match = 'vector';
      why = new Map(hits.map((h) => [h.seq, { similarity: h.similarity, matchedBy: null }]));
      fromRanked(hits.map((h) => ({ seq: h.seq, score: h.similarity })));
    } else {
      const terms = queryTerms(query);
      const andExpr = buildMatch(terms, 'AND', null);
      let lex = andExpr ? assets.ftsSeqs(scope, andExpr, filters, RANKED_DEPTH) : [];
      if (lex.length === 0 && terms.length > 1) lex = assets.ftsSeqs(scope, buildMatch(terms, 'OR', null)!, filters, RANKED_DEPTH);
      const fused = reciprocalRankFusion([lex, hits.map((h) => h.seq)]);
      const lexical = new Set(lex);
      const semantic = new Map(hits.map((h) => [h.seq, h.similarity]));
      why = new Map(fused.map((f) => [f.id, {
        similarity: semantic.get(f.id) ?? null,
        matchedBy: [...(lexical.has(f.id) ? ['lexical' as const] : []), ...(semantic.has(f.id) ? ['semantic' as const] : [])],
      }]));
      match = 'hybrid';
      fromRanked(fused.map((f) => ({ seq: f.id, score: f.score })));
    }
  }

  const hasMore = rows.length > limit;
  const pageRows = rows.slice(0, limit);
  return {
    assets: pageRows.map((r, i) => {
      const a = toAsset(r, assets.renditions(r.seq), urls, scores[i] ?? null);
      const w = why?.get(r.seq);
      return w ? { ...a, similarity: w.similarity, matched_by: w.matchedBy } : a;
    }),
    total,
    next_cursor: hasMore ? cursors.encode(cursorKey, { offset: state.offset + limit, snapshot: state.snapshot }) : null,
    has_more: hasMore,
    request: {
      query: query ?? null,
      mode,
      kind: args.kind ?? null,
      category: args.category ?? null,
      subtype: args.subtype ?? null,
      orientation: args.orientation ?? null,
      limit,
      theme_id: theme.themeId,
      workspace_id: scope.workspaceId,
      similar_to_asset_id: args.similar_to_asset_id ?? null,
      degraded_from: degradedFrom,
      match,
    },
  };
}
