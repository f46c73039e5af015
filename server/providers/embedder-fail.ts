import type { TextEmbedder } from './embedder-types.ts';

/** Switch of a failure-injecting embedder: tests flip `failing` to exercise degraded paths. */
export interface FailSwitch {
  failing: boolean;
}

/**
 * Failure injection for tests (`ATELIER_EMBEDDER=fail`): wraps a real embedder and throws while
 * `control.failing` is true, so `degraded_from` paths run against the real search code.
 * @throws Error "embedder unavailable (failure injection)" while failing
 */
export function createFailingEmbedder(inner: TextEmbedder, control: FailSwitch): TextEmbedder {
  return {
    modelId: inner.modelId,
    dimensions: inner.dimensions,
    async embed(texts, signal) {
      if (control.failing) throw new Error('embedder unavailable (failure injection)');
      return inner.embed(texts, signal);
    },
  };
}
