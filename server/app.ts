import { randomBytes, randomUUID } from 'node:crypto';
import type { Config } from './config.ts';
import { nameWords } from './domain/media/alt-text.ts';
import { openSqliteStores, type Stores } from './stores.ts';
import { createUploadService } from './assets/upload.ts';
import { createCursorCodec } from './domain/search/cursor.ts';
import { imageWork, type LibraryDeps } from './assets/deps.ts';
import { configureSharp, createImagePool, IMAGE_PRIORITY } from './assets/image-pool.ts';
import { createGenerator } from './assets/generate.ts';
import type { AssetVectorSearch } from './assets/search.ts';
import { createCatalog, type Catalog } from './catalog/catalog.ts';
import { catalogRouter } from './routers/catalog.ts';
import type { TextEmbedder } from './providers/embedder-types.ts';
import { createEnrichment } from './enrichment/service.ts';
import { createOcrEngine } from './enrichment/ocr.ts';
import type { Logger } from './log.ts';
import { createAppResources } from './mcp/app-resources.ts';
import type { ServerDeps } from './mcp/create-server.ts';
import { createInflightCalls } from './mcp/inflight.ts';
import { createToolTasks } from './mcp/tasks.ts';
import {
  createConfiguredCaptioner,
  createConfiguredEmbedder,
  createConfiguredImageModel,
  createConfiguredImageProviders,
  createThesaurusLoader,
} from './providers/configured.ts';
import type { ProviderRegistry } from './providers/registry.ts';
import { assetImportRouter } from './routers/asset-import.ts';
import { assetUploadAppRouter } from './routers/asset-upload-app.ts';
import { assetUploadRouter } from './routers/asset-upload.ts';
import { assetLibraryRouter } from './routers/asset-library.ts';
import { assetPanelRouter } from './routers/asset-panel.ts';
import { assetSelectRouter } from './routers/asset-select.ts';
import { assetManageRouter } from './routers/asset-manage.ts';
import { assetsRouter } from './routers/assets.ts';
import { draftsRouter } from './routers/drafts.ts';
import { discoverRouter } from './routers/discover.ts';
import type { RouterImpls } from './routers/types.ts';
import { ROUTER } from '../shared/actions.ts';
import { describeScope } from './tenancy/scope.ts';
import { createUrlBuilder } from './storage/urls.ts';
import { createTestHooks } from './test-hooks.ts';
import { warmSearch, type WarmReport } from './search-warmup.ts';
import type { StagingStore } from './storage/staging.ts';
import { createBlobStore, createStaging } from './storage/configured.ts';
import { createRateLimits, withRateLimits, type RateLimits } from './tenancy/rate-limits.ts';
import { createWorkers } from './workers.ts';
import { PACKAGE_VERSION } from './package-root.ts';

/** The composed application: database, use-case deps and MCP server deps. */
export interface App {
  config: Config;
  /** shared text embedder (null when none is configured) */
  embedder: TextEmbedder | null;
  /** product catalog: deps for the CLI and seed; `setEmbedder` swaps its embedder */
  catalog: Catalog;
  /** every durable port, on the configured backend (SQLite or PostgreSQL) */
  stores: Stores;
  library: LibraryDeps;
  /** the upload channel's staging area (chunks and staged files; beside the blobs) */
  staging: StagingStore;
  providers: ProviderRegistry;
  server: ServerDeps;
  /** per-key and per-tenant rate limits (server/tenancy/rate-limits.ts); the HTTP layer counts its requests here */
  rateLimits: RateLimits;
  /** Random id of this data dir (settings `data_id`): `/healthz` shows it so processes on the same data dir recognise each other. */
  dataId: string;
  /** Set the CDN base URL once the HTTP listener is bound (when neither ATELIER_CDN_URL nor ATELIER_PUBLIC_URL is set). */
  setCdnBase(url: string): void;
  /**
   * Start the background workers: the enrichment job runner, the catalog embedding backfill, the upload
   * sweeper and the blob GC. Only long-running servers (serve, start) call it; idempotent.
   */
  startWorkers(): void;
  /**
   * Load what the first searches would, before taking requests (server/search-warmup.ts): the FTS5
   * tables in memory, WordNet, the local embedder, recent workspaces' and stores' vectors. Servers call it
   * before they listen.
   * @param budgetMs no step starts after this, ms (default ATELIER_SEARCH_WARM_MS; 0: nothing)
   */
  warmSearch(budgetMs?: number): Promise<WarmReport>;
  /** Stop background work and close the database. */
  close(): Promise<void>;
}

/**
 * Composition root: open the database (migrations run), build the blob store, URL builder, cursor
 * codec, providers and routers. No I/O besides the database and blob directory happens here, and no
 * background work starts until `startWorkers`.
 */
export async function buildApp(config: Config, log: Logger): Promise<App> {
  const hooks = createTestHooks(config.testPause.points, config.testPause.dir);
  const d = config.database;
  const stores =
    d.kind === 'postgres'
      ? // imported only here: a server on the SQLite default never loads the PostgreSQL driver and adapters
        await (await import('./stores-pg.ts')).openPgStores(d, hooks)
      : openSqliteStores(config.dbPath, hooks, { vectorMemoryBytes: config.env.ATELIER_VECTOR_MEMORY_BYTES });
  const tenancy = stores.tenancy;
  const cursorSecret = await tenancy.ensureSetting('cursor_secret', randomBytes(32).toString('hex'));
  const dataId = await tenancy.ensureSetting('data_id', randomUUID());
  let cdnBase = config.cdnUrl ?? config.publicUrl ?? `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`;
  // Image work: one libvips thread per operation, no operation cache; the pool bounds how many run.
  configureSharp();
  const images = createImagePool({
    concurrency: config.env.ATELIER_IMAGE_CONCURRENCY,
    maxActiveImports: config.env.ATELIER_IMPORT_MAX_ACTIVE,
    nice: config.env.ATELIER_IMAGE_NICE,
    svgRenderTimeoutMs: config.env.ATELIER_SVG_RENDER_TIMEOUT_MS,
    timeoutS: config.env.ATELIER_IMAGE_TIMEOUT_S,
  });
  // WordNet (concept expansion, calibration background probes): loaded once, on first use.
  const thesaurus = createThesaurusLoader(config, log);
  const library: LibraryDeps = {
    assets: stores.assets,
    lexical: stores.lexical,
    synonyms: stores.synonyms,
    thesaurus,
    tenancy,
    blobs: await createBlobStore(config, hooks),
    urls: createUrlBuilder(() => cdnBase),
    cursors: createCursorCodec(cursorSecret),
    policy: {
      maxImportBytes: config.maxImportBytes,
      maxInputPixels: config.maxInputPixels,
      fetchTimeoutMs: config.fetchTimeoutMs,
      allowPrivateUrls: config.allowPrivateUrls,
      tenantQuotaBytes: config.env.ATELIER_TENANT_QUOTA_BYTES,
    },
    images,
    log: log.child({ mod: 'library' }),
    onAssetStored: [],
    testHooks: hooks,
  };
  const closers: (() => Promise<void> | void)[] = [() => images.close()];
  // Rows written before file-name words were indexed (migration 0022) get them now.
  await library.assets.backfillNameWords(nameWords);
  // Rows written before public blob keys (issue 36, migration 0062 / PG 0020) get theirs before anything is served.
  await library.assets.backfillBlobKeys();
  const calibrations = stores.calibrations;
  // Text embedder (shared by asset and catalog search) and asynchronous enrichment after import.
  const env = config.env;
  const embedder: TextEmbedder | null = createConfiguredEmbedder(config, log);
  // The optional image–text model: loaded when the workers start (or on the first search), off the main thread.
  const imageModel = createConfiguredImageModel(config, log);
  const enrichment = env.ATELIER_ENRICHMENT
    ? createEnrichment({
        assets: library.assets,
        jobs: stores.jobs,
        enrichment: stores.enrichment,
        vectors: stores.vectors,
        blobs: library.blobs,
        embedder,
        imageModel,
        // one OCR worker per job that runs at once: OCR is most of an analysis
        ocr: env.ATELIER_OCR ? createOcrEngine(log.child({ mod: 'ocr' }), env.ATELIER_ENRICHMENT_CONCURRENCY) : null,
        images: imageWork(images, IMAGE_PRIORITY.background),
        captioner: createConfiguredCaptioner(config),
        concurrency: env.ATELIER_ENRICHMENT_CONCURRENCY,
        retryBaseMs: env.ATELIER_ENRICHMENT_RETRY_BASE_MS,
        calibrations,
        matchAlpha: env.ATELIER_MATCH_ALPHA,
        thesaurus,
        log: log.child({ mod: 'enrichment' }),
        testHooks: hooks,
      })
    : null;
  if (enrichment) {
    library.onAssetStored.push(enrichment.hook);
    closers.push(() => enrichment.close());
  }
  const vectors: AssetVectorSearch | null = enrichment?.vectors ?? null;
  // Image generation providers (local always; openai/gemini when configured).
  const providers = createConfiguredImageProviders(config);
  // Chunked uploads (panel) and staged attachments for import.
  const staging = await createStaging(config);
  const uploads = createUploadService({
    library,
    uploads: stores.uploads,
    staging,
    policy: {
      chunkSizeBytes: config.env.ATELIER_UPLOAD_CHUNK_BYTES,
      maxFileBytes: config.maxImportBytes,
      ttlMs: config.env.ATELIER_UPLOAD_TTL_MS,
      maxOpenSessions: config.env.ATELIER_UPLOAD_MAX_OPEN,
      completionLeaseMs: config.env.ATELIER_UPLOAD_COMPLETE_LEASE_MS,
    },
    now: () => Date.now(),
    log: log.child({ mod: 'upload' }),
  });
  // Attachments of svc_asset_import resolve to verified staged uploads of the same scope.
  // Metadata updates re-run enrichment for the asset (re-embedding, vector metadata); deletion cascades.
  const manageRouter = assetManageRouter(library, enrichment ? (seq) => void enrichment.refresh(seq) : null);
  // Product catalog (store-scoped read model).
  const catalog = createCatalog({
    stores: { products: stores.products, vectors: stores.productVectors },
    tenancy,
    cursors: library.cursors,
    embedder,
    log: log.child({ mod: 'catalog' }),
    search: { lexical: stores.lexical, synonyms: library.synonyms, thesaurus, calibrations, matchAlpha: env.ATELIER_MATCH_ALPHA },
    shopify: {
      shop: config.env.ATELIER_SHOPIFY_SHOP ?? null,
      accessToken: config.env.ATELIER_SHOPIFY_ACCESS_TOKEN ?? null,
      apiVersion: config.env.ATELIER_SHOPIFY_API_VERSION,
      adminUrl: config.env.ATELIER_SHOPIFY_ADMIN_URL ?? null,
      timeoutMs: config.env.ATELIER_SHOPIFY_TIMEOUT_MS,
    },
  });
  closers.push(() => catalog.close());
  // Generation with the credit ledger.
  const credits = stores.credits;
  // a hold outlives the longest generation: every attempt timing out plus the retry waits, plus a margin
  const holdTtlMs =
    (env.ATELIER_GENERATION_MAX_RETRIES + 1) * env.ATELIER_GENERATION_TIMEOUT_MS +
    env.ATELIER_GENERATION_MAX_RETRIES * env.ATELIER_GENERATION_MAX_RETRY_WAIT_MS +
    10 * 60_000;
  const generator = createGenerator({
    library,
    providers,
    credits,
    defaultBudget: env.ATELIER_CREDIT_BUDGET ?? null,
    heartbeatMs: env.ATELIER_GENERATION_HEARTBEAT_MS,
    holdTtlMs,
  });
  // Picker and panel-only actions; ui:// panel resources.
  const pickerDeps = { library, pickers: stores.pickers, ttlMs: config.env.ATELIER_PICKER_TTL_MS };
  const registerPanelResources = createAppResources({ cdnBase: () => cdnBase, domain: config.uiDomain, log: log.child({ mod: 'panels' }) });
  // Every router of the registry (a missing one fails tsc: RouterImpls is keyed by router name).
  const unlimited: RouterImpls = {
    [ROUTER.assetLibrary]: assetLibraryRouter(library, () => vectors),
    [ROUTER.assetSelect]: assetSelectRouter(pickerDeps, () => vectors),
    [ROUTER.drafts]: draftsRouter(library, generator),
    [ROUTER.assets]: assetsRouter(library, providers),
    [ROUTER.assetManage]: manageRouter,
    [ROUTER.assetImport]: assetImportRouter(library, uploads.resolveAttachment),
    [ROUTER.assetUpload]: assetUploadRouter(library, uploads),
    [ROUTER.catalog]: catalogRouter(catalog.deps),
    [ROUTER.discover]: discoverRouter(library),
    [ROUTER.assetPanel]: assetPanelRouter({ ...pickerDeps, facets: stores.facets }, () => vectors),
    [ROUTER.assetUploadApp]: assetUploadAppRouter(library, uploads),
  };
  // per-key and per-tenant call limits by cost class, counted in the configured database
  const rateLimits = createRateLimits(
    stores.database,
    {
      cheapPerKey: env.ATELIER_RATE_CHEAP_PER_KEY,
      cheapPerTenant: env.ATELIER_RATE_CHEAP_PER_TENANT,
      costlyPerKey: env.ATELIER_RATE_COSTLY_PER_KEY,
      costlyPerTenant: env.ATELIER_RATE_COSTLY_PER_TENANT,
      requestsPerKey: env.ATELIER_RATE_REQUESTS_PER_KEY,
    },
    log.child({ mod: 'rate-limits' }),
  );
  const routers = withRateLimits(unlimited, rateLimits);
  // Generations of 2026-07-28 clients that declare the Tasks extension run as tasks: progress lines and the
  // cancel check at the generation heartbeat; kept an hour past the longest generation (the credit hold's TTL).
  const inflight = createInflightCalls();
  const tasks = createToolTasks({
    store: stores.toolTasks,
    log: log.child({ mod: 'tasks' }),
    tickMs: env.ATELIER_GENERATION_HEARTBEAT_MS,
    ttlMs: holdTtlMs + 60 * 60_000,
    inflight,
  });
  // runs before the database closes: tasks still running end as failed (the server stopped)
  closers.push(() => tasks.close());
  // Background workers (enrichment runner, catalog backfill, sweeper, blob GC) start only with
  // `startWorkers` (serve/start): a one-shot CLI command opens the same core without claiming jobs.
  const workers = createWorkers({ config, log, library, enrichment, catalog, uploads, oauth: stores.oauth, tasks });
  closers.push(() => workers.close());
  const server: ServerDeps = {
    version: PACKAGE_VERSION,
    inflight,
    tasks,
    log: log.child({ mod: 'mcp' }),
    routers,
    registerResources: registerPanelResources,
    describeScope: (principal) => describeScope(tenancy, principal),
  };
  return {
    config,
    embedder,
    catalog,
    stores,
    dataId,
    rateLimits,
    library,
    staging,
    providers,
    server,
    setCdnBase(url) {
      if (!config.cdnUrl && !config.publicUrl) cdnBase = url.replace(/\/+$/, '');
    },
    startWorkers: () => workers.start(),
    warmSearch: (budgetMs = env.ATELIER_SEARCH_WARM_MS) =>
      warmSearch(
        {
          assets: stores.assets,
          vectors,
          localEmbedder: env.ATELIER_EMBEDDER === 'static' ? embedder : null,
          thesaurus,
          catalog: { products: stores.products, warm: (scope) => catalog.warm(scope) },
        },
        budgetMs,
        log.child({ mod: 'warmup' }),
      ),
    async close() {
      for (const c of closers.reverse()) await c();
      await stores.close();
    },
  };
}
