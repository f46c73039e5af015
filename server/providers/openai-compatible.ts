import { z } from 'zod';

const ErrorBodySchema = z.object({ error: z.union([z.string(), z.object({ message: z.string() })]) });

/**
 * POST a JSON body to an OpenAI-compatible endpoint (OpenAI, Ollama, TEI, vLLM, LM Studio) and zod-parse
 * the answer. Error bodies follow the OpenAI shape `{error: {message}}` (or `{error: "…"}`):
 * https://platform.openai.com/docs/guides/error-codes
 * @param label names the endpoint in errors ("embeddings", "vision")
 * @param opts.timeoutMs deadline of the whole request, ms (combined with `signal`)
 * @throws Error naming the endpoint and the HTTP status, a non-JSON body, or the first shape problem
 */
export async function postOpenAiJson<T extends z.ZodType>(
  url: string,
  body: unknown,
  schema: T,
  opts: { label: string; apiKey: string | null; timeoutMs: number; signal?: AbortSignal | undefined },
): Promise<z.infer<T>> {
  const timeout = AbortSignal.timeout(opts.timeoutMs);
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {}) },
    body: JSON.stringify(body),
    signal: opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout,
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${opts.label} endpoint ${url} answered ${res.status} with a non-JSON body (${text.length} bytes)`);
  }
  if (!res.ok) {
    const err = ErrorBodySchema.safeParse(json);
    const msg = err.success ? (typeof err.data.error === 'string' ? err.data.error : err.data.error.message) : 'no error message';
    throw new Error(`${opts.label} endpoint ${url} answered ${res.status}: ${msg}`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(
      `${opts.label} endpoint ${url} returned an unexpected shape: ${issue?.message ?? ''} at ${issue?.path.join('.') ?? ''}`,
    );
  }
  return parsed.data;
}
