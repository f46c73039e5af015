/**
 * The providers the configuration names, for the composition root (server/app.ts): the text embedder,
 * the optional image–text model and captioner, the image generation providers, and WordNet.
 */
import type { Config } from '../config.ts';
import type { Thesaurus } from '../domain/search/concepts.ts';
import type { Logger } from '../log.ts';
import { defaultWordVectorCacheDir } from './embedder-static.ts';
import type { TextEmbedder } from './embedder-types.ts';
import { createEmbedder } from './embedder.ts';
import { createImageTextModel, type ImageTextModelHandle } from './image-text-model.ts';
import { createImageProviders, type ProviderRegistry } from './registry.ts';
import { createHttpCaptioner, type ImageCaptioner } from './vision-http.ts';
import { loadWordnet } from './wordnet.ts';

/** The text embedder of ATELIER_EMBEDDER (shared by asset and catalog search), or null when none is configured. */
export function createConfiguredEmbedder(config: Config, log: Logger): TextEmbedder | null {
  const env = config.env;
  return createEmbedder(
    {
      backend: env.ATELIER_EMBEDDER,
      cacheDir: env.ATELIER_EMBEDDINGS_CACHE_DIR ?? null,
      http: {
        baseUrl: env.ATELIER_EMBEDDINGS_URL,
        apiKey: env.ATELIER_EMBEDDINGS_KEY ?? null,
        model: env.ATELIER_EMBEDDINGS_MODEL,
        dimensions: env.ATELIER_EMBEDDINGS_DIMENSIONS,
        timeoutMs: env.ATELIER_EMBEDDINGS_TIMEOUT_MS,
      },
    },
    log.child({ mod: 'embedder' }),
  );
}

/**
 * The image–text model of ATELIER_IMAGE_MODEL, or null when none is configured. Nothing loads here: it
 * loads when the workers start (or on the first search), off the main thread.
 */
export function createConfiguredImageModel(config: Config, log: Logger): ImageTextModelHandle | null {
  const env = config.env;
  return env.ATELIER_IMAGE_MODEL
    ? createImageTextModel({
        source: env.ATELIER_IMAGE_MODEL,
        dataDir: config.dataDir,
        threads: env.ATELIER_IMAGE_MODEL_THREADS,
        nice: env.ATELIER_IMAGE_NICE,
        log: log.child({ mod: 'image-model' }),
      })
    : null;
}

/** The HTTP vision captioner of ATELIER_VISION_URL (enrichment alt text), or null when none is configured. */
export function createConfiguredCaptioner(config: Config): ImageCaptioner | null {
  const env = config.env;
  return env.ATELIER_VISION_URL
    ? createHttpCaptioner({
        baseUrl: env.ATELIER_VISION_URL,
        apiKey: env.ATELIER_VISION_KEY ?? null,
        model: env.ATELIER_VISION_MODEL,
        timeoutMs: env.ATELIER_VISION_TIMEOUT_MS,
      })
    : null;
}

/** Image generation providers: local always; openai and gemini when their API keys are configured. */
export function createConfiguredImageProviders(config: Config): ProviderRegistry {
  const env = config.env;
  const list = (v: string): string[] =>
    v
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean);
  return createImageProviders({
    defaultProvider: env.ATELIER_DEFAULT_PROVIDER,
    openai: env.ATELIER_OPENAI_API_KEY
      ? { apiKey: env.ATELIER_OPENAI_API_KEY, baseUrl: env.ATELIER_OPENAI_BASE_URL, models: list(env.ATELIER_OPENAI_IMAGE_MODELS) }
      : null,
    gemini: env.ATELIER_GEMINI_API_KEY
      ? { apiKey: env.ATELIER_GEMINI_API_KEY, baseUrl: env.ATELIER_GEMINI_BASE_URL, models: list(env.ATELIER_GEMINI_IMAGE_MODELS) }
      : null,
    retry: {
      maxRetries: env.ATELIER_GENERATION_MAX_RETRIES,
      timeoutMs: env.ATELIER_GENERATION_TIMEOUT_MS,
      maxRetryHintMs: env.ATELIER_GENERATION_MAX_RETRY_WAIT_MS,
    },
  });
}

/**
 * WordNet (concept expansion, calibration background probes) on first use, once per process, from the
 * embeddings cache directory; a failure is logged once and concept expansion stays off (search still
 * works without it).
 */
export function createThesaurusLoader(config: Config, log: Logger): () => Promise<Thesaurus | null> {
  const cacheDir = config.env.ATELIER_EMBEDDINGS_CACHE_DIR ?? defaultWordVectorCacheDir();
  const wordnetLog = log.child({ mod: 'wordnet' });
  let loading: Promise<Thesaurus | null> | null = null;
  return () =>
    (loading ??= loadWordnet(cacheDir, wordnetLog).catch((err: unknown) => {
      wordnetLog.warn({ err: err instanceof Error ? err.message : String(err) }, 'WordNet could not be loaded; concept expansion is off');
      return null;
    }));
}
