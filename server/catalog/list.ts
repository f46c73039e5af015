import type { ListProductsArgs, ListProductsResult, ProductSearchMode } from '../../shared/schemas/product.ts';
import type { ProductFilters, StoreScope } from '../db/products.ts';
import { trimNeighbours } from '../domain/catalog.ts';
import { buildMatch, queryTerms } from '../domain/fts-query.ts';
import { reciprocalRankFusion } from '../domain/rrf.ts';
import { ServiceError } from '../errors.ts';
import type { CatalogDeps } from './deps.ts';

/** Candidates per ranked list (lexical, KNN) before fusion and paging. */
const RANKED_DEPTH = 500;

type Ref = { seq: number; gid: string; handle: string };

/**
 * `list_products` (spec §4.8). Browse (no query, no related id) orders by title. Lexical is FTS5/BM25
 * requiring all terms, falling back to any term when that finds nothing. Semantic is KNN over product
 * embeddings, trimmed to neighbours near the best one (`trimNeighbours`); hybrid fuses both lists with RRF (k = 60). Related ranks by embedding distance from the
 * given product, else by shared collections, type and tags. Whenever the embedder is missing, failing
 * or still indexing the store, semantic and hybrid return lexical results with `degraded_from` (rule 9).
 * @throws ServiceError invalid_argument (args.cursor) | not_found (args.related_to_product_id)
 */
export async function listProducts(deps: CatalogDeps, scope: StoreScope, args: ListProductsArgs, signal?: AbortSignal): Promise<ListProductsResult> {
  const { products, cursors } = deps;
  const query = args.query && args.query.length > 0 ? args.query : undefined;
  const cursorKey = {
    t: scope.tenantId, w: scope.workspaceId, st: scope.storeId, q: query ?? null, m: args.search_mode, r: args.related_to_product_id ?? null,
    c: args.collection?.toLowerCase() ?? null, pt: args.product_type?.toLowerCase() ?? null, s: [...args.status].sort(),
  };
  const state = args.cursor ? cursors.decode(cursorKey, args.cursor) : { offset: 0, snapshot: products.maxSeq(scope) };
  const filters: ProductFilters = { statuses: args.status, collection: args.collection, productType: args.product_type, maxSeq: state.snapshot };
  const { offset } = state;
  const limit = args.limit;

  let mode: ProductSearchMode = args.search_mode;
  let degradedFrom: ProductSearchMode | null = null;
  let page: Ref[];
  let total: number;

  const fromRanked = (seqs: number[]): void => {
    total = seqs.length;
    page = products.bySeqs(scope, seqs.slice(offset, offset + limit + 1));
  };
  const lexicalSeqs = (q: string): number[] => {
    const terms = queryTerms(q);
    const all = buildMatch(terms, 'AND', null);
    let seqs = all ? products.ftsSeqs(scope, all, filters, RANKED_DEPTH) : [];
    if (seqs.length === 0 && terms.length > 1) seqs = products.ftsSeqs(scope, buildMatch(terms, 'OR', null)!, filters, RANKED_DEPTH);
    return seqs;
  };
  /** The query vector, or null when semantic search cannot answer now (then we degrade). */
  const queryVector = async (text: string): Promise<{ vector: Float32Array; modelId: string } | null> => {
    const e = deps.embedder();
    if (!e) return null;
    if (!deps.indexer.complete(scope.storeId, e)) {
      deps.indexer.schedule(scope.storeId);
      return null;
    }
    try {
      const [v] = await e.embed([text], signal);
      return v && v.length === e.dimensions ? { vector: v, modelId: e.modelId } : null;
    } catch (err) {
      deps.log.warn({ err: (err as Error).message }, 'query embedding failed; list_products degrades to lexical');
      return null;
    }
  };

  if (args.related_to_product_id) {
    const source = products.byGids(scope, [args.related_to_product_id]).get(args.related_to_product_id);
    if (!source) throw new ServiceError('not_found', 'args.related_to_product_id', `product ${args.related_to_product_id} does not exist in store ${scope.storeId}`);
    const rf = { ...filters, excludeSeq: source.seq };
    const e = mode === 'lexical' ? null : deps.embedder();
    const vector = e && deps.indexer.complete(scope.storeId, e) ? products.embeddingOf(source.seq, e.modelId, e.dimensions) : null;
    if (e && vector) {
      fromRanked(trimNeighbours(products.knn(scope, e.modelId, vector, rf, RANKED_DEPTH)).map((h) => h.seq));
    } else {
      if (mode !== 'lexical') {
        if (e) deps.indexer.schedule(scope.storeId);
        degradedFrom = mode;
        mode = 'lexical';
      }
      fromRanked(products.relatedByAttributes(scope, source, rf, RANKED_DEPTH));
    }
  } else if (!query) {
    const r = products.browse(scope, filters, offset, limit + 1);
    page = r.rows;
    total = r.total;
    // Browsing ranks nothing, so it needs no semantic infrastructure: report lexical, never degraded.
    mode = 'lexical';
  } else if (mode === 'lexical') {
    const terms = queryTerms(query);
    const all = buildMatch(terms, 'AND', null);
    let r = all ? products.searchFts(scope, all, filters, offset, limit + 1) : { rows: [], total: 0 };
    if (r.total === 0 && terms.length > 1) r = products.searchFts(scope, buildMatch(terms, 'OR', null)!, filters, offset, limit + 1);
    page = r.rows;
    total = r.total;
  } else {
    const qv = await queryVector(query);
    if (!qv) {
      degradedFrom = mode;
      mode = 'lexical';
      fromRanked(lexicalSeqs(query));
    } else {
      const knn = trimNeighbours(products.knn(scope, qv.modelId, qv.vector, filters, RANKED_DEPTH)).map((h) => h.seq);
      fromRanked(mode === 'semantic' ? knn : reciprocalRankFusion([lexicalSeqs(query), knn]).map((f) => f.id));
    }
  }

  const hasMore = page!.length > limit;
  const items = page!.slice(0, limit).map((r) => ({ product_id: r.gid, handle: r.handle }));
  return {
    items,
    total: total!,
    returned: items.length,
    has_more: hasMore,
    next_cursor: hasMore ? cursors.encode(cursorKey, { offset: offset + limit, snapshot: state.snapshot }) : null,
    search_mode: mode,
    degraded_from: degradedFrom,
    catalog_synced_at: products.syncedAt(scope),
  };
}
