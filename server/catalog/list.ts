import { stemmer } from 'stemmer';
import {
  ProductStatusSchema,
  type ListProductsArgs,
  type ListProductsResult,
  type ProductSearchMode,
} from '../../shared/schemas/product.ts';
import type { ProductFilters, StoreScope } from '../db/ports/product-store.ts';
import {
  acceptanceScore,
  estimateTextNull,
  isStale,
  SAMPLE_DOCS,
  semanticRelevance,
  standardScore,
  type NullModel,
} from '../domain/search/calibration.ts';
import { STOP_WORDS } from '../domain/search/query-words.ts';
import { fuse } from '../domain/search/fusion.ts';
import { Ranked, type Fused } from '../domain/search/hit-lists.ts';
import { runLexical, type LexicalResult } from '../domain/search/lexical.ts';
import { correctedQuery } from '../domain/search/lexical-words.ts';
import type { ConceptTexts } from '../domain/search/concept-forms.ts';
import { nearHandles } from '../domain/catalog.ts';
import { ServiceError } from '../errors.ts';
import type { TextEmbedder } from '../providers/embedder-types.ts';
import { rankedCacheOf } from '../domain/search/ranked-cache.ts';
import { agreeingProducts } from './agreement.ts';
import { colourContradicted, withoutMatches } from './colours.ts';
import type { CatalogDeps } from './deps.ts';

/** Candidates per ranked list (lexical, KNN) before fusion and paging. */
const RANKED_DEPTH = 500;
/** Suggestions are offered when a query has fewer matches than this, at most `MAX_SUGGESTIONS`. */
const FEW_MATCHES = 3;
const MAX_SUGGESTIONS = 5;
const MIN_SUGGESTION_RELEVANCE = 0.1;

type Ref = { seq: number; gid: string; handle: string };

/**
 * The null model of a store's product vectors under the current model (domain/search/calibration.ts),
 * estimated on first use and again when the store's embedded products changed by a quarter.
 * @throws what the embedder throws
 */
async function productNull(deps: CatalogDeps, scope: StoreScope, e: TextEmbedder, items: number): Promise<NullModel | null> {
  const key = `product:${e.modelId}:${e.dimensions}`;
  const stored = await deps.search.calibrations.get(key, scope.storeId);
  if (stored && !isStale(stored, items)) return stored;
  const docs = (await deps.vectors.sample(scope, e.modelId, e.dimensions, SAMPLE_DOCS)).map((d) => ({ text: d.text, vector: d.vector }));
  const thesaurus = await deps.search.thesaurus();
  const model = await estimateTextNull({
    docs,
    items,
    embed: (t) => e.embed(t),
    background: thesaurus?.frequentNouns(200) ?? [],
    stop: STOP_WORDS,
    stem: stemmer,
  });
  if (model) await deps.search.calibrations.put(key, scope.storeId, model);
  return model;
}

/**
 * Load what a store's first semantic or hybrid `list_products` would: its product vectors in memory and
 * its stored null model (estimated once when missing), without embedding a query.
 * @returns false when there is nothing to load (no embedder or vector store, the store not fully embedded, no vectors)
 * @throws what the embedder or the stores throw
 */
export async function warmStore(deps: CatalogDeps, scope: StoreScope): Promise<boolean> {
  const e = deps.embedder();
  if (!e || !(await deps.vectors.available()).ok || !(await deps.indexer.complete(scope.storeId, e))) return false;
  const items = await deps.vectors.count(scope, e.modelId, e.dimensions);
  if (items === 0) return false;
  await productNull(deps, scope, e, items);
  // any query vector loads the store's vectors: the first axis, nearest one
  const axis = new Float32Array(e.dimensions);
  axis[0] = 1;
  await deps.vectors.nearest(scope, e.modelId, axis, 1, { statuses: ['ACTIVE'] });
  return true;
}

/**
 * An empty page under a `collection` filter: tell "no such handle" apart from "an empty collection".
 * @throws ServiceError not_found (args.collection) naming the near handles (also in `details.near_handles`)
 */
async function assertCollection(deps: CatalogDeps, scope: StoreScope, collection: string): Promise<void> {
  const handles = await deps.products.collectionHandles(scope);
  const want = collection.toLowerCase();
  if (handles.includes(want)) return;
  const near = nearHandles(want, handles);
  throw new ServiceError(
    'not_found',
    'args.collection',
    handles.length === 0
      ? `store ${scope.storeId} has no collections; omit collection`
      : `no collection of store ${scope.storeId} has the handle "${collection}"; its handles include: ${near.join(', ')}`,
    { details: { near_handles: near } },
  );
}

/**
 * `list_products` (spec §4.8) under the honest results contract: `items` and `total` hold matches
 * only, each with a relevance in [0, 1] and how it matched; near non-matches come back apart as
 * `suggestions` when a query matches nothing or very little.
 * - Browse (no query, no related id) orders by title.
 * - Lexical runs the shared planner (domain/search/lexical.ts): exact words, an unfinished last word, typo
 *   correction, WordNet concepts and the store's synonym list.
 * - Semantic is KNN over product embeddings, a hit accepted only when its similarity is significant
 *   under the store's calibrated null model (domain/search/calibration.ts).
 * - Hybrid fuses both (domain/search/fusion.ts): a complete lexical match always ranks above a
 *   semantic-only one, and a semantic-only product is a match only when its type, tags or collections
 *   agree with the query (catalog/agreement.ts); otherwise it may come back as a suggestion. Semantic
 *   mode, asked for meaning alone, keeps every calibrated hit.
 * - Related ranks by embedding distance from the given product (calibrated the same way), else by
 *   shared collections, type and tags.
 * Whenever the embedder is missing, failing or still indexing the store, or the vector store cannot
 * search (PostgreSQL without pgvector), semantic and hybrid return lexical results with `degraded_from`
 * (rule 9).
 * @throws ServiceError invalid_argument (args.cursor) | not_found (args.related_to_product_id; args.collection when the
 *   store has no collection with that handle and nothing matched)
 */
export async function listProducts(
  deps: CatalogDeps,
  scope: StoreScope,
  args: ListProductsArgs,
  signal?: AbortSignal,
): Promise<ListProductsResult> {
  const { products, cursors } = deps;
  const query = args.query && args.query.length > 0 ? args.query : undefined;
  // frozen: its stable JSON is computed once for the ranked-pass cache and the cursor (domain/search/cursor.ts)
  const cursorKey = Object.freeze({
    t: scope.tenantId,
    w: scope.workspaceId,
    st: scope.storeId,
    q: query ?? null,
    m: args.search_mode,
    r: args.related_to_product_id ?? null,
    c: args.collection?.toLowerCase() ?? null,
    pt: args.product_type?.toLowerCase() ?? null,
    s: [...args.status].sort(),
  });
  // a new result set reads its snapshot bound and the change-log head at once (a later page, the head alone, when it ranks)
  const start = args.cursor ? null : await products.searchSnapshot(scope);
  const state = start ? { offset: 0, snapshot: start.maxSeq } : cursors.decode(cursorKey, args.cursor!);
  let head = start?.changeHead;
  const filters: ProductFilters = {
    statuses: args.status,
    collection: args.collection,
    productType: args.product_type,
    maxSeq: state.snapshot,
  };
  const { offset } = state;
  const limit = args.limit;

  /** One ranked pass (everything but browsing): the fused list, the lexical result, the mode answered. */
  interface Pass {
    ranked: Ranked;
    lexical: LexicalResult | null;
    mode: ProductSearchMode;
    degradedFrom: ProductSearchMode | null;
  }
  let browse: { rows: Ref[]; total: number } | null = null;

  /** The embedder that has yet to embed some of the store's products (set by `readyEmbedder`), or null. */
  let embedding: TextEmbedder | null = null;
  /** The embedder when the store is fully embedded under it (else schedule indexing; null = degrade). */
  const readyEmbedder = async (): Promise<TextEmbedder | null> => {
    const e = deps.embedder();
    if (!e) return null;
    if (!(await deps.indexer.complete(scope.storeId, e, head))) {
      deps.indexer.schedule(scope.storeId);
      embedding = e;
      return null;
    }
    return e;
  };
  /** Calibrated KNN relevance from a query vector; null when semantic search cannot answer now. */
  const knn = async (e: TextEmbedder, vector: Float32Array, f: ProductFilters): Promise<{ seq: number; relevance: number }[] | null> => {
    const available = await deps.vectors.available();
    if (!available.ok) {
      deps.log.warn({ reason: available.reason }, 'product vectors cannot be searched; list_products degrades to lexical');
      return null;
    }
    // the request's change-log head (read with the snapshot, or before ranking): the partitions need not read it again
    const items = await deps.vectors.count(scope, e.modelId, e.dimensions, head);
    let model: NullModel | null;
    try {
      model = await productNull(deps, scope, e, items);
    } catch (err) {
      deps.log.warn({ err: (err as Error).message }, 'semantic calibration failed; list_products degrades to lexical');
      return null;
    }
    const accept = acceptanceScore(items, deps.search.matchAlpha);
    return (await deps.vectors.nearest(scope, e.modelId, vector, RANKED_DEPTH, f, head)).map((h) => ({
      seq: h.seq,
      relevance: model ? semanticRelevance(standardScore(model, 1 - h.distance), accept) : 0,
    }));
  };

  const rankPass = async (): Promise<Pass> => {
    let mode: ProductSearchMode = args.search_mode;
    let degradedFrom: ProductSearchMode | null = null;
    let lexical: LexicalResult | null = null;
    if (args.related_to_product_id) {
      const source = (await products.byGids(scope, [args.related_to_product_id])).get(args.related_to_product_id);
      if (!source)
        throw new ServiceError(
          'not_found',
          'args.related_to_product_id',
          `product ${args.related_to_product_id} does not exist in store ${scope.storeId}`,
        );
      const rf = { ...filters, excludeSeq: source.seq };
      const e = mode === 'lexical' ? null : await readyEmbedder();
      const vector = e ? await deps.vectors.get(scope, source.seq, e.modelId, e.dimensions) : null;
      const hits = e && vector ? await knn(e, vector, rf) : null;
      if (hits) return { ranked: fuse(null, hits), lexical, mode, degradedFrom };
      if (mode !== 'lexical') {
        degradedFrom = mode;
        mode = 'lexical';
      }
      // shared collections, type and tags: every listed product shares something with the source
      const ranked = Ranked.of(
        (await products.relatedByAttributes(scope, source, rf, RANKED_DEPTH)).map((seq): Fused => ({
          seq,
          relevance: 0.5,
          matchedBy: ['text'],
          match: true,
        })),
      );
      return { ranked, lexical, mode, degradedFrom };
    }
    let vector: { e: TextEmbedder; v: Float32Array } | null = null;
    if (mode !== 'lexical') {
      const e = await readyEmbedder();
      try {
        const [v] = e ? await e.embed([query!], signal) : [];
        vector = e && v && v.length === e.dimensions ? { e, v } : null;
      } catch (err) {
        deps.log.warn({ err: (err as Error).message }, 'query embedding failed; list_products degrades to lexical');
      }
    }
    const semantic = vector ? (vector.v.some((x) => x !== 0) ? await knn(vector.e, vector.v, filters) : []) : null;
    if (mode !== 'lexical' && !semantic) {
      degradedFrom = mode;
      mode = 'lexical';
    }
    let agreeing: Set<number> | null = null;
    let vetoed: ReadonlySet<number> = new Set();
    if (mode !== 'semantic') {
      const thesaurus = await deps.search.thesaurus();
      const synonyms = await deps.search.synonyms.forStore(scope, scope.storeId, head);
      lexical = await runLexical(
        query!,
        deps.search.lexical.products(scope, filters, head),
        { column: null, thesaurus, typos: true, synonyms, depth: RANKED_DEPTH, conceptTexts: productTexts(deps, scope) },
        offset + limit + 1,
      );
      // a product whose text names other colours than the query's is no match on either side (catalog/colours.ts)
      vetoed = await colourContradicted(deps, scope, lexical, mode === 'hybrid' ? semantic : null);
      if (vetoed.size > 0) lexical = { ...lexical, hits: withoutMatches(lexical.hits, vetoed) };
      // hybrid: a meaning-only product counts only when its labels agree with the query (catalog/agreement.ts)
      if (mode === 'hybrid' && semantic)
        agreeing = await agreeingProducts(deps, scope, lexical, semantic, { thesaurus, synonyms, query: query! });
    }
    const agrees = agreeing ? (seq: number) => agreeing.has(seq) && !vetoed.has(seq) : null;
    return {
      ranked: fuse(lexical?.hits ?? null, mode === 'lexical' ? null : semantic, 'meaning', null, agrees),
      lexical,
      mode,
      degradedFrom,
    };
  };

  let pass: Pass | null = null;
  if (!args.related_to_product_id && !query) {
    browse = await products.browse(scope, filters, offset, limit + 1);
  } else {
    // One ranked pass per result set: later pages of the same cursor snapshot reuse the first page's
    // pass while nothing in the change log moved (a deeper page than the pass fetched ranks again).
    const cache = rankedCacheOf<Pass>(products);
    const at = (head ??= await products.changeHead());
    const first = offset === 0 && !args.cursor;
    pass = first ? await rankPass() : await cache.get(cursorKey, state.snapshot, at, rankPass);
    const deep = (p: Pass) => !p.lexical || p.lexical.exactTotal <= p.lexical.exactFetched || p.ranked.matches > offset + limit;
    if (!deep(pass)) pass = await rankPass();
    if (first) cache.put(cursorKey, state.snapshot, at, pass);
  }
  // Browsing ranks nothing, so it needs no semantic infrastructure: report lexical, never degraded.
  const mode: ProductSearchMode = pass ? pass.mode : 'lexical';
  const degradedFrom = pass?.degradedFrom ?? null;
  const lexical = pass?.lexical ?? null;
  const ranked = pass?.ranked ?? null;

  let refs: { seq: number; relevance: number | null; matchedBy: Fused['matchedBy'] | null }[];
  let total: number;
  let suggestions: Fused[] = [];
  if (browse) {
    refs = browse.rows.map((r) => ({ seq: r.seq, relevance: null, matchedBy: null }));
    total = browse.total;
  } else {
    total = ranked!.matches + (lexical ? Math.max(0, lexical.exactTotal - lexical.exactFetched) : 0);
    refs = ranked!.matchRange(offset, offset + limit + 1);
    if (offset === 0 && query && ranked!.matches < FEW_MATCHES)
      // matches and suggestions together stay within `limit` (issue 34)
      suggestions = ranked!.suggestions(MIN_SUGGESTION_RELEVANCE, Math.min(MAX_SUGGESTIONS, Math.max(0, limit - ranked!.matches)));
  }
  const rows = await products.refsBySeqs(scope, [...refs.map((r) => r.seq), ...suggestions.map((s) => s.seq)]);
  const ref = (r: { seq: number; relevance: number | null; matchedBy: Fused['matchedBy'] | null }) => {
    const row = rows.get(r.seq);
    return row ? [{ product_id: row.gid, handle: row.handle, relevance: r.relevance, matched_by: r.matchedBy }] : [];
  };
  const hasMore = refs.length > limit || (!browse && offset + limit < total);
  const items = refs.slice(0, limit).flatMap(ref);
  if (items.length === 0 && args.collection) await assertCollection(deps, scope, args.collection);
  return {
    items,
    total,
    total_is_estimate: lexical?.exactEstimated ?? false,
    suggestions: suggestions.flatMap(ref),
    corrected_query: query && lexical ? correctedQuery(query, lexical.corrections) : null,
    expanded_terms: lexical?.expanded ?? [],
    returned: items.length,
    has_more: hasMore,
    next_cursor: hasMore ? cursors.encode(cursorKey, { offset: offset + limit, snapshot: state.snapshot }) : null,
    search_mode: mode,
    degraded_from: degradedFrom,
    catalog_synced_at: await products.syncedAt(scope),
    ...(embedding ? { indexing: await embeddingBacklog(deps, scope, embedding) } : {}),
  };
}

/**
 * The texts of products the planner's noun check of WordNet concepts reads (domain/search/concept-forms.ts):
 * those of the lexical index that say what the product is (title, handle, type, tags, description), with the
 * option values for the variant titles they are made of. Not the vendor: a brand's name says nothing of the
 * kind of its products, so "dwelling" and "plate" (home plate) must not reach every product of Home Sweet
 * Home through "home"; the vendor's own words still match as text.
 * @throws what the product store throws
 */
function productTexts(deps: CatalogDeps, scope: StoreScope): ConceptTexts {
  return async (seqs) =>
    new Map(
      (await deps.products.bySeqs(scope, [...seqs])).map((r) => [
        r.seq,
        [r.title, r.handle, r.product_type, r.tags.join(' '), r.description_text, ...r.options.map((o) => o.values.join(' '))],
      ]),
    );
}

/**
 * How many of the store's products the embedder has yet to embed (index state, issue 33): asked only
 * when the store was found incomplete, so a fully embedded store costs no query. Products whose stored
 * vector is stale still count as embedded here; the count is at least 1 (the store was found incomplete).
 */
async function embeddingBacklog(deps: CatalogDeps, scope: StoreScope, e: TextEmbedder): Promise<{ pending: number; total: number }> {
  const [all, embedded] = await Promise.all([
    deps.products.browse(scope, { statuses: [...ProductStatusSchema.options] }, 0, 0),
    deps.vectors.count(scope, e.modelId, e.dimensions),
  ]);
  const total = Math.max(1, all.total);
  return { pending: Math.min(total, Math.max(1, total - embedded)), total };
}
