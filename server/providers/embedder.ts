import type { Logger } from '../log.ts';
import { createFailingEmbedder } from './embedder-fail.ts';
import { createHttpEmbedder } from './embedder-http.ts';
import { createStaticEmbedder, defaultWordVectorCacheDir } from './embedder-static.ts';
import type { TextEmbedder } from './embedder-types.ts';

/** Embedder settings taken from config (`ATELIER_EMBEDDER*`, `ATELIER_EMBEDDINGS_*`). */
export interface EmbedderSettings {
  backend: 'static' | 'http' | 'fail' | 'none';
  /** where the compact word-vector file lives; null = `node_modules/.cache/atelier` */
  cacheDir: string | null;
  http: { baseUrl: string | undefined; apiKey: string | null; model: string; dimensions: number | undefined; timeoutMs: number };
}

/**
 * Build the one text embedder shared by the asset library and the catalog.
 * `static` (default, offline), `http` (OpenAI-compatible), `fail` (static wrapped in failure
 * injection, always failing: for degraded-path tests), `none` (no embedder: semantic modes unsupported).
 * @throws Error when `http` lacks its URL or dimensions
 */
export function createEmbedder(s: EmbedderSettings, log: Logger): TextEmbedder | null {
  switch (s.backend) {
    case 'none':
      return null;
    case 'http':
      if (!s.http.baseUrl) throw new Error('ATELIER_EMBEDDINGS_URL is required when ATELIER_EMBEDDER=http');
      if (!s.http.dimensions) throw new Error('ATELIER_EMBEDDINGS_DIMENSIONS is required when ATELIER_EMBEDDER=http');
      return createHttpEmbedder({ ...s.http, baseUrl: s.http.baseUrl, dimensions: s.http.dimensions });
    case 'fail':
      return createFailingEmbedder(createStaticEmbedder({ cacheDir: s.cacheDir ?? defaultWordVectorCacheDir(), log }), { failing: true });
    case 'static':
      return createStaticEmbedder({ cacheDir: s.cacheDir ?? defaultWordVectorCacheDir(), log });
  }
}
