import { z } from 'zod';
import { int } from './config-fields.ts';

/**
 * The image generation variables (part of config.ts `EnvSchema`): the default provider, the OpenAI and
 * Gemini providers (server/providers/), their request timeouts and retries, progress heartbeats, and the
 * default credit budget.
 */
export const GENERATION_ENV = {
  ATELIER_DEFAULT_PROVIDER: z
    .string()
    .min(1)
    .default('local')
    .describe('image provider used when asset_generate omits provider: local, openai or gemini (must be enabled)'),
  ATELIER_OPENAI_API_KEY: z.string().min(1).optional().describe('enables the openai image provider (Images API)'),
  ATELIER_OPENAI_BASE_URL: z
    .string()
    .url('must be an absolute URL')
    .default('https://api.openai.com/v1')
    .describe('OpenAI API base URL up to /v1'),
  ATELIER_OPENAI_IMAGE_MODELS: z
    .string()
    .min(1)
    .default('gpt-image-1.5,gpt-image-1,gpt-image-1-mini,gpt-image-2')
    .describe('comma-separated OpenAI image models to offer; the first is the default'),
  ATELIER_GEMINI_API_KEY: z.string().min(1).optional().describe('enables the gemini image provider (generateContent)'),
  ATELIER_GEMINI_BASE_URL: z
    .string()
    .url('must be an absolute URL')
    .default('https://generativelanguage.googleapis.com/v1beta')
    .describe('Gemini API base URL up to /v1beta'),
  ATELIER_GEMINI_IMAGE_MODELS: z
    .string()
    .min(1)
    .default('gemini-3.1-flash-image-preview,gemini-2.5-flash-image,gemini-3-pro-image-preview,gemini-2.5-flash-image-preview')
    .describe('comma-separated Gemini image models to offer (lite, flash, pro, legacy tiers); the first is the default'),
  ATELIER_GENERATION_TIMEOUT_MS: int(1000, 1_800_000)
    .default(300_000)
    .describe('per-attempt timeout of a remote image request, ms (high-quality images can take minutes)'),
  ATELIER_GENERATION_MAX_RETRIES: int(0, 10).default(2).describe('retries of a remote image request on 408/409/429/5xx and network errors'),
  ATELIER_GENERATION_MAX_RETRY_WAIT_MS: int(0, 600_000)
    .default(60_000)
    .describe('longest server retry hint (retry-after, RetryInfo) waited for in-process, ms'),
  ATELIER_GENERATION_HEARTBEAT_MS: int(100, 600_000)
    .default(5_000)
    .describe('interval of MCP progress notifications while a provider works, ms'),
  ATELIER_CREDIT_BUDGET: int(0, 1_000_000_000)
    .optional()
    .describe('credit budget applied to workspaces without their own budget; unset = unlimited'),
};
