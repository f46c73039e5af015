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
  /**
   * For a word the embedder has no vector for, the known word one edit away that it would embed instead
   * (domain/search/spelling.ts); null when the word is known, or nothing near is. Only embedders with a
   * closed vocabulary have it (word vectors); subword models embed a misspelt word themselves.
   */
  spell?(word: string): Promise<string | null>;
}
