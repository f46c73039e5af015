import type { CapabilityEntry } from '../../shared/schemas/asset.ts';
import { createGeminiProvider, GEMINI_MODELS } from './gemini.ts';
import type { RetryPolicy } from './http-retry.ts';
import { createLocalProvider } from './local.ts';
import { createOpenAiProvider } from './openai.ts';
import type { ImageProvider } from './types.ts';

/** The providers enabled on this server, in preference order (the first is the default). */
export interface ProviderRegistry {
  list(): ImageProvider[];
  get(id: string): ImageProvider | undefined;
  /**
   * Capability entries of every enabled provider/model pair, default provider first; the entry used
   * when `provider` and `model` are omitted carries `default: true`. A provider's first entry is its
   * default model.
   */
  capabilities(): CapabilityEntry[];
}

/**
 * @param providers enabled providers, in preference order
 * @param defaultId the provider used when `provider` is omitted (default: the first)
 * @throws Error when `defaultId` names no enabled provider (a configuration error at start)
 */
export function createProviderRegistry(providers: ImageProvider[], defaultId?: string): ProviderRegistry {
  const def = defaultId === undefined ? providers[0] : providers.find((p) => p.id === defaultId);
  if (!def) throw new Error(`default image provider "${defaultId}" is not enabled (enabled: ${providers.map((p) => p.id).join(', ')})`);
  const ordered = [def, ...providers.filter((p) => p !== def)];
  return {
    list: () => ordered,
    get: (id) => ordered.find((p) => p.id === id),
    capabilities: () =>
      ordered.flatMap((p) => p.capabilities().map((e, i) => (p === def && i === 0 ? { ...e, default: true } : { ...e, default: false }))),
  };
}

/** Settings of the image providers, read from config in the composition root. */
export interface ImageProviderSettings {
  defaultProvider: string;
  openai: { apiKey: string; baseUrl: string; models: string[] } | null;
  gemini: { apiKey: string; baseUrl: string; models: string[] } | null;
  retry: RetryPolicy;
}

/**
 * The enabled providers: `local` always; `openai` and `gemini` only when their API key is configured.
 * @throws Error on an unknown Gemini model id or a default provider that is not enabled (start-up errors)
 */
export function createImageProviders(s: ImageProviderSettings): ProviderRegistry {
  const list: ImageProvider[] = [createLocalProvider()];
  if (s.openai) list.push(createOpenAiProvider({ ...s.openai, retry: s.retry }));
  if (s.gemini) {
    const unknown = s.gemini.models.filter((m) => !(m in GEMINI_MODELS));
    if (unknown.length)
      throw new Error(`unknown Gemini image model(s): ${unknown.join(', ')} (known: ${Object.keys(GEMINI_MODELS).join(', ')})`);
    list.push(createGeminiProvider({ ...s.gemini, retry: s.retry }));
  }
  return createProviderRegistry(list, s.defaultProvider);
}
