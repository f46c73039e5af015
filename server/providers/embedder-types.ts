/**
 * A text embedding service shared by the asset library (semantic/all modes) and the product catalog
 * (semantic/hybrid/related). Backends (static word vectors, OpenAI-compatible HTTP, failure injection)
 * are chosen by config in the composition root.
 */
export interface TextEmbedder {
  /** Identifies the vector space; vectors of different model ids are never compared. */
  readonly modelId: string;
  /** Vector length. */
  readonly dimensions: number;
  /**
   * Embed texts into L2-normalised vectors, one per text, in order.
   * @throws Error when the backend is unavailable (callers degrade to lexical search)
   */
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
}
