import type { AssetStore } from './db/ports/asset-store.ts';
import type { ProductStore, StoreScope } from './db/ports/product-store.ts';
import type { AssetVectorSearch } from './assets/search.ts';
import type { Logger } from './log.ts';
import type { TextEmbedder } from './providers/embedder-types.ts';

/** Workspaces, and stores, whose vectors a starting server loads at most (the most recently written first). */
export const WARM_WORKSPACES = 8;

/** What a warm-up loaded and how long it took. */
export interface WarmReport {
  /** the local embedder's word vectors were loaded */
  embedder: boolean;
  /** WordNet (concept expansion) was loaded */
  thesaurus: boolean;
  /** workspaces whose text vectors and null model were loaded */
  workspaces: number;
  /** stores whose product vectors and null model were loaded */
  stores: number;
  /** the whole warm-up, ms */
  ms: number;
}

/**
 * Load, before a server takes requests, what the first searches of a process would otherwise load
 * while an agent waits: WordNet, the local embedder's word vectors,
 * text-vector partitions and stored null models of the most recently written workspaces (about 2.3 s per
 * 100,000 vectors), then the product vectors and null models of the most recently written stores,
 * newest first, until `budgetMs` has passed (a step under way
 * finishes; the rest loads on first use, as before). Memory stays bounded by the partition budget
 * (ATELIER_VECTOR_MEMORY_BYTES). A failure is logged and ends the warm-up: searches then load what is
 * missing themselves.
 * @param budgetMs time after which no further step starts, ms (0: nothing is loaded)
 */
export async function warmSearch(
  d: {
    assets: Pick<AssetStore, 'recentScopes'>;
    vectors: AssetVectorSearch | null;
    /** the embedder to load when it is local (null: none, or one behind an API that needs no loading) */
    localEmbedder: TextEmbedder | null;
    /** WordNet's loader (the planner's concept expansion) */
    thesaurus?: () => Promise<unknown>;
    /** the product catalog: its stores by recency, and the loading of one store's vectors */
    catalog?: { products: Pick<ProductStore, 'recentStores'>; warm: (scope: StoreScope) => Promise<boolean> };
  },
  budgetMs: number,
  log: Logger,
): Promise<WarmReport> {
  const t0 = performance.now();
  const report: WarmReport = { embedder: false, thesaurus: false, workspaces: 0, stores: 0, ms: 0 };
  if (budgetMs <= 0) return report;
  const left = (): boolean => performance.now() - t0 < budgetMs;
  try {
    if (d.thesaurus && left()) report.thesaurus = (await d.thesaurus()) !== null;
    if (d.localEmbedder && left()) {
      await d.localEmbedder.embed(['warm up']);
      report.embedder = true;
    }
    if (d.vectors?.warm)
      for (const scope of await d.assets.recentScopes(WARM_WORKSPACES)) {
        if (!left()) break;
        if (d.vectors?.warm && (await d.vectors.warm(scope))) report.workspaces++;
      }
    if (d.catalog && left())
      for (const scope of await d.catalog.products.recentStores(WARM_WORKSPACES)) {
        if (!left()) break;
        if (await d.catalog.warm(scope)) report.stores++;
      }
  } catch (err) {
    log.warn({ err: err instanceof Error ? err.message : String(err) }, 'search warm-up stopped: the first searches load the rest');
  }
  report.ms = Math.round(performance.now() - t0);
  log.info(report, 'search warmed');
  return report;
}
