import { z } from 'zod';
import { normalize } from '../domain/search/sif.ts';
import type { TextEmbedder } from './embedder-types.ts';
import { postOpenAiJson } from './openai-compatible.ts';

/** Texts per request: OpenAI accepts up to 2048 inputs; local servers (TEI, Ollama) prefer small batches. */
const BATCH = 64;

const EmbeddingsResponseSchema = z.object({
  data: z.array(z.object({ index: z.number().int().min(0), embedding: z.array(z.number()) })),
  model: z.string().optional(),
});

/** Settings of an OpenAI-compatible embeddings endpoint. */
export interface HttpEmbedderOptions {
  /** base URL up to and including `/v1`, e.g. `http://127.0.0.1:11434/v1` */
  baseUrl: string;
  apiKey: string | null;
  model: string;
  /** vector length the model returns */
  dimensions: number;
  timeoutMs: number;
}

/**
 * Text embedder over an OpenAI-compatible `POST {baseUrl}/embeddings` endpoint (OpenAI, Ollama, TEI,
 * LM Studio, vLLM). Wire format: https://platform.openai.com/docs/api-reference/embeddings/create —
 * request `{model, input: string[], encoding_format: "float"}`, response `{data: [{index, embedding}]}`.
 * Responses are zod-parsed; vectors are re-normalised (not every server returns unit vectors).
 * The model id is `http:<model>` so vectors of different models are never compared.
 * @throws Error naming the status/body or shape problem (callers degrade to lexical search)
 */
export function createHttpEmbedder(opts: HttpEmbedderOptions): TextEmbedder {
  const url = `${opts.baseUrl.replace(/\/+$/, '')}/embeddings`;
  const embedBatch = async (input: string[], signal?: AbortSignal): Promise<Float32Array[]> => {
    const data = await postOpenAiJson(url, { model: opts.model, input, encoding_format: 'float' }, EmbeddingsResponseSchema, {
      label: 'embeddings',
      apiKey: opts.apiKey,
      timeoutMs: opts.timeoutMs,
      signal,
    });
    const out = new Array<Float32Array | undefined>(input.length);
    for (const d of data.data) {
      if (d.index >= input.length) throw new Error(`embeddings endpoint returned index ${d.index} for ${input.length} inputs`);
      if (d.embedding.length !== opts.dimensions)
        throw new Error(`embeddings endpoint returned ${d.embedding.length} dimensions, configured ${opts.dimensions}`);
      out[d.index] = normalize(Float32Array.from(d.embedding));
    }
    return out.map((v, i) => {
      if (!v) throw new Error(`embeddings endpoint returned no vector for input ${i}`);
      return v;
    });
  };
  return {
    modelId: `http:${opts.model}`,
    dimensions: opts.dimensions,
    async embed(texts, signal) {
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += BATCH)
        out.push(
          ...(await embedBatch(
            texts.slice(i, i + BATCH).map((t) => (t.length > 0 ? t : ' ')),
            signal,
          )),
        );
      return out;
    },
  };
}
