import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { BLOB_STORE_ENV, blobStoreConfig, blobStoreProblems, type BlobStoreConfig } from './config-blob-store.ts';
import { CATALOG_ENV } from './config-catalog.ts';
import { bool, int } from './config-fields.ts';
import { GENERATION_ENV } from './config-generation.ts';
import { externalIdpConfig, OAUTH_ENV, oauthProblems, type ExternalIdpConfig } from './config-oauth.ts';
import { DEFAULT_PARTITION_BUDGET_BYTES } from './vector-scan/partition-budget.ts';

/**
 * Environment variables, parsed once by `loadConfig`. Defaults make `npm start` work on a fresh machine:
 * an embedded SQLite file and a local blob store under `./data`, HTTP on 127.0.0.1:3333.
 */
export const EnvSchema = z.object({
  ATELIER_DATA_DIR: z.string().min(1).default('./data').describe('SQLite file atelier.db and the blob store live here'),
  ATELIER_HOST: z.string().min(1).default('127.0.0.1').describe('HTTP bind address'),
  ATELIER_PORT: int(0, 65535).default(3333).describe('HTTP port (0 = any free port)'),
  ATELIER_CDN_URL: z
    .string()
    .url('must be an absolute URL')
    .optional()
    .describe('public base URL of the /cdn route; default http://<host>:<port>'),
  ATELIER_PUBLIC_URL: z
    .url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL such as https://atelier.example.com' })
    .refine(
      (u) => !URL.canParse(u) || (new URL(u).pathname === '/' && !new URL(u).search),
      'must be an origin like https://atelier.example.com (no path)',
    )
    .optional()
    .describe(
      "public base URL of this server as clients reach it (behind a TLS-terminating proxy: https://atelier.example.com): the OAuth issuer (<url>/oauth) and resource (<url>/mcp); asset URLs and the panels' CSP use it unless ATELIER_CDN_URL names another asset origin; unset = http://<host>:<port>",
    ),
  ATELIER_UI_DOMAIN: z
    .string()
    .regex(/^[A-Za-z0-9.:/-]+$/, 'must be a host name (or "none")')
    .optional()
    .describe(
      'the panels\' `_meta.ui.domain` (host-specific format); default with ATELIER_PUBLIC_URL: Claude\'s, sha256(<public URL>/mcp)[0:32].claudemcpcontent.com; "none" = never sent',
    ),
  ATELIER_API_KEY: z.string().min(1).optional().describe('API key used by the stdio transport'),
  ATELIER_INSTANCE_ID: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,31}$/, 'must be 1–32 lowercase letters, digits and hyphens, starting with a letter or digit')
    .optional()
    .describe(
      'name of this process among several behind one reverse proxy: MCP session ids start with "<name>." so the proxy can send a session back to the process that holds it (README, several processes)',
    ),
  ATELIER_DATABASE_URL: z
    .string()
    .regex(
      /^postgres(ql)?:\/\//,
      'must be a postgres://user:password@host:5432/database URL; unset = the SQLite file <ATELIER_DATA_DIR>/atelier.db',
    )
    .optional()
    .describe(
      'PostgreSQL instead of the embedded SQLite file (several processes on one database; needs the unaccent extension, and pgvector for semantic search)',
    ),
  ATELIER_DATABASE_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lowercase SQL identifier (letters, digits, _; at most 63)')
    .optional()
    .describe("PostgreSQL schema holding Atelier's tables (search_path); unset = the role's default (public)"),
  ATELIER_DATABASE_POOL_MAX: int(1, 200).default(10).describe('most PostgreSQL connections of one process'),
  ATELIER_VECTOR_MEMORY_BYTES: int(1024 * 1024, 2 ** 46)
    .default(DEFAULT_PARTITION_BUDGET_BYTES)
    .describe(
      "bound of the in-memory search partitions of one process (SQLite: each searched workspace's asset vectors, as int8 + float32 copies; each store's product vectors), bytes (default 1 GiB; ≈ 77 MB per 100,000 vectors of 100 dimensions, ≈ 1.0 GB per 100,000 of 1,536); beyond it the least recently searched are dropped and reload from the database on their next search",
    ),
  ATELIER_SEARCH_WARM_MS: int(0, 10 * 60_000)
    .default(20_000)
    .describe(
      'before a server takes requests it loads what the first searches would (WordNet, the local embedder, the vectors of the most recently written workspaces, the vectors of the most recently written stores) until this much time has passed, ms (0: off, searches load on first use)',
    ),
  ATELIER_ALLOW_PRIVATE_URLS: bool.default(false).describe('allow URL imports from private/loopback addresses (tests only)'),
  ATELIER_MAX_IMPORT_BYTES: int(1024, 1024 * 1024 * 1024)
    .default(50 * 1024 * 1024)
    .describe('largest accepted import, bytes'),
  ATELIER_TENANT_QUOTA_BYTES: int(0, Number.MAX_SAFE_INTEGER)
    .default(10 * 1024 ** 3)
    .describe(
      "storage quota of each tenant, bytes (default 10 GiB; 0 = unlimited): its assets' originals and renditions plus its staged uploads; an import, upload or generation past it is refused with quota_exceeded",
    ),
  ATELIER_MAX_INPUT_PIXELS: int(1, 1_000_000_000)
    .default(100_000_000)
    .describe('decompression-bomb guard: largest accepted width × height, px'),
  ATELIER_FETCH_TIMEOUT_MS: int(100, 600_000).default(20_000).describe('URL import timeout, ms'),
  ATELIER_MAX_SESSIONS_PER_KEY: int(1, 100_000)
    .default(64)
    .describe("open Streamable HTTP sessions per API key; a new one beyond this closes the key's least recently used session"),
  ATELIER_MAX_REQUEST_BYTES: int(1024 * 1024, 64 * 1024 * 1024)
    .default(1024 * 1024)
    .describe(
      'largest /mcp request body, bytes, after any Content-Encoding is inflated (one upload chunk as base64 needs about 700 KB); bytes beyond an inline `data` import of this size go through the chunked upload',
    ),
  ATELIER_REQUEST_TIMEOUT_MS: int(1000, 600_000)
    .default(30_000)
    .describe('time a client has to send a whole request (headers and body) before the connection is closed, ms'),
  ATELIER_HEADERS_TIMEOUT_MS: int(1000, 600_000)
    .default(10_000)
    .describe('time a client has to send the request headers, ms (at most ATELIER_REQUEST_TIMEOUT_MS)'),
  ATELIER_MAX_CONNECTIONS: int(1, 1_000_000)
    .default(1024)
    .describe('open HTTP connections at once; beyond this new connections are closed on arrival'),
  // Rate limits (issue 36 finding 5): fixed one-minute windows counted in the configured database
  ATELIER_RATE_CHEAP_PER_KEY: int(1, 10_000_000)
    .default(600)
    .describe(
      'cheap tool calls (search, view, select, list, get, discover, upload chunks …) per API key per minute; more get rate_limited',
    ),
  ATELIER_RATE_CHEAP_PER_TENANT: int(1, 10_000_000).default(1200).describe('cheap tool calls per tenant per minute (all its keys)'),
  ATELIER_RATE_COSTLY_PER_KEY: int(1, 10_000_000)
    .default(60)
    .describe('costly tool calls (import, upload, upload begin/complete, generate/edit/composite) per API key per minute'),
  ATELIER_RATE_COSTLY_PER_TENANT: int(1, 10_000_000).default(120).describe('costly tool calls per tenant per minute (all its keys)'),
  ATELIER_RATE_REQUESTS_PER_KEY: int(1, 10_000_000)
    .default(1200)
    .describe('HTTP requests to /mcp per API key per minute, any message (initialize, tools/list …); more get HTTP 429 with Retry-After'),
  ATELIER_ALLOWED_HOSTS: z
    .string()
    .optional()
    .describe('comma-separated Host header values accepted by /mcp (DNS-rebinding guard) when binding beyond localhost'),
  ATELIER_SHUTDOWN_GRACE_MS: int(0, 3_600_000)
    .default(30_000)
    .describe(
      'on SIGTERM/SIGINT or (stdio) end of stdin, how long tool calls in progress may finish before the process closes the database and exits, ms',
    ),
  ...OAUTH_ENV,
  ATELIER_CORS_ORIGINS: z
    .string()
    .optional()
    .refine(
      (v) =>
        !v ||
        v
          .split(',')
          .map((o) => o.trim())
          .filter(Boolean)
          .every((o) => o === '*' || /^https?:\/\/[^/\s]+\/?$/i.test(o)),
      'must be a comma-separated list of origins like https://host.example (scheme://host[:port], no path) or *',
    )
    .describe(
      'comma-separated browser origins allowed to call /mcp cross-origin (CORS), e.g. a web MCP Apps host; unset = no CORS headers (browsers refuse cross-origin calls)',
    ),
  ATELIER_IMAGE_CONCURRENCY: int(1, 64)
    .default(Math.max(1, os.availableParallelism()))
    .describe('image operations (one decode or encode each, one libvips thread) running at once; default the number of CPU cores'),
  ATELIER_IMAGE_NICE: int(0, 19)
    .default(10)
    .describe(
      'CPU priority (nice value, 0–19) of the threads that decode and resize images on Linux; higher yields the CPU to the thread answering requests, so search and view stay fast while imports run; 0 = the same priority',
    ),
  ATELIER_SVG_RENDER_TIMEOUT_MS: int(100, 600_000)
    .default(10_000)
    .describe(
      'longest an SVG may take to render at import, ms; a slower document (filters such as feTurbulence cost work per pixel) is stopped and refused',
    ),
  ATELIER_IMAGE_TIMEOUT_S: int(0, 3600)
    .default(30)
    .describe(
      'longest one image operation (a decode and resize, or an encode) of an import, view or generation input may run, whole s; a slower one is stopped and the call refused with conversion_failed; 0 = no limit',
    ),
  ATELIER_IMPORT_MAX_ACTIVE: int(1, 10_000)
    .default(8)
    .describe(
      'imports in progress at once (URL, data, attachments, upload complete); one more is refused with the retryable error busy (details.retry_after_ms)',
    ),
  ATELIER_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // ── catalog ──
  ...CATALOG_ENV,
  // ── enrichment ──
  ATELIER_EMBEDDER: z
    .enum(['static', 'http', 'fail', 'none'])
    .default('static')
    .describe('text embedder: static (offline GloVe+SIF), http (OpenAI-compatible /v1/embeddings), fail (failure injection, tests), none'),
  ATELIER_EMBEDDINGS_URL: z
    .string()
    .url('must be an absolute URL')
    .optional()
    .describe('base URL of an OpenAI-compatible API up to /v1, e.g. http://127.0.0.1:11434/v1 (ATELIER_EMBEDDER=http)'),
  ATELIER_EMBEDDINGS_KEY: z.string().min(1).optional().describe('Bearer key for ATELIER_EMBEDDINGS_URL'),
  ATELIER_EMBEDDINGS_MODEL: z.string().min(1).default('text-embedding-3-small').describe('model name sent to the embeddings endpoint'),
  ATELIER_EMBEDDINGS_DIMENSIONS: int(1, 8192).optional().describe('vector length of ATELIER_EMBEDDINGS_MODEL (required with http)'),
  ATELIER_EMBEDDINGS_TIMEOUT_MS: int(100, 600_000).default(30_000).describe('embeddings request timeout, ms'),
  ATELIER_EMBEDDINGS_CACHE_DIR: z
    .string()
    .min(1)
    .optional()
    .describe(
      'directory of the compact word-vector file of the static embedder and of the WordNet thesaurus file; default dist/word-vectors in the package (shipped by npm pack; a checkout builds them there on first use)',
    ),
  ATELIER_ENRICHMENT: bool.default(true).describe('run asynchronous enrichment (OCR, colours, tags, alt text, embeddings) after import'),
  ATELIER_ENRICHMENT_CONCURRENCY: int(1, 16)
    .default(Math.min(2, Math.max(1, os.availableParallelism())))
    .describe(
      'enrichment jobs run at once, each with an OCR worker of its own (~100 MB); default 2 (1 on one core). The image and OCR threads run at a lowered CPU priority, so requests keep their share',
    ),
  ATELIER_MATCH_ALPHA: z.coerce
    .number()
    .gt(0, 'must be > 0')
    .lt(1, 'must be < 1')
    .default(0.05)
    .describe(
      'calibrated acceptance of meaning (semantic) and visual (similar) matches: the family-wise rate at which a query about nothing in a library still gets such a match (default 0.05; lower = stricter). Replaces ATELIER_SEMANTIC_MIN_SIMILARITY',
    ),
  ATELIER_ENRICHMENT_RETRY_BASE_MS: int(1, 600_000)
    .default(2000)
    .describe('first retry delay of a failed enrichment job, ms (then ×4 per attempt, 4 attempts)'),
  ATELIER_OCR: bool.default(true).describe('run OCR (tesseract.js, bundled English data) during enrichment'),
  ATELIER_IMAGE_MODEL: z
    .string()
    .min(1)
    .optional()
    .describe(
      'CLIP-class image–text model for search by what pictures show: a model id of the hub (e.g. Xenova/clip-vit-base-patch32, downloaded once into <ATELIER_DATA_DIR>/models) or a local folder of a transformers.js CLIP export; needs the optional @huggingface/transformers; unset = none',
    ),
  ATELIER_IMAGE_MODEL_THREADS: int(1, 64)
    .default(1)
    .describe('onnxruntime threads of each encoder of ATELIER_IMAGE_MODEL (image and text), ≥ 1'),
  ATELIER_VISION_URL: z
    .string()
    .url('must be an absolute URL')
    .optional()
    .describe('OpenAI-compatible API (up to /v1) with a vision-capable chat model for machine alt text; unset = heuristic alt text'),
  ATELIER_VISION_KEY: z.string().min(1).optional().describe('Bearer key for ATELIER_VISION_URL'),
  ATELIER_VISION_MODEL: z.string().min(1).default('gpt-4o-mini').describe('vision model name for machine alt text'),
  ATELIER_VISION_TIMEOUT_MS: int(100, 600_000).default(60_000).describe('vision caption request timeout, ms'),
  // ── generation ──
  ...GENERATION_ENV,
  // ── panels / upload ──
  ATELIER_UPLOAD_CHUNK_BYTES: int(1024, 512 * 1024)
    .default(512 * 1024)
    .describe('raw bytes per upload chunk (≤ 512 KiB; sent base64 through the panel-only upload actions)'),
  ATELIER_UPLOAD_TTL_MS: int(1, 30 * 24 * 3600 * 1000)
    .default(24 * 3600 * 1000)
    .describe('an upload session not touched for this long, and a staged attachment this long after upload, is deleted with its bytes, ms'),
  ATELIER_UPLOAD_SWEEP_MS: int(10, 24 * 3600 * 1000)
    .default(60_000)
    .describe('how often expired upload sessions and expired OAuth state (codes, sessions, tokens) are swept, ms'),
  ATELIER_PICKER_TTL_MS: int(1, 30 * 24 * 3600 * 1000)
    .default(24 * 3600 * 1000)
    .describe('an asset picker the user has not confirmed after this long expires (get_selection answers expired), ms'),
  ATELIER_UPLOAD_COMPLETE_LEASE_MS: int(300, 600_000)
    .default(10_000)
    .describe(
      'lease of an upload complete in progress, ms: renewed every third of it; a complete on another process waits for it, and takes over once the lease of a crashed process lapsed',
    ),
  ATELIER_UPLOAD_MAX_OPEN: int(1, 10_000)
    .default(100)
    .describe('open upload sessions allowed per workspace: receiving, or staged as an attachment not imported yet'),
  // ── storage ──
  ATELIER_BLOB_GC_GRACE_MS: int(0, 30 * 24 * 3600 * 1000)
    .default(3600 * 1000)
    .describe('an unreferenced blob (deleted asset, failed insert) is removed once its last write is this old, ms'),
  ATELIER_BLOB_GC_INTERVAL_MS: int(0, 30 * 24 * 3600 * 1000)
    .default(6 * 3600 * 1000)
    .describe('how often the server sweeps unreferenced blobs, ms (0 = never; `atelier gc` runs one pass)'),
  ...BLOB_STORE_ENV,
  // ── tests only ──
  ATELIER_TEST_PAUSE_AT: z
    .string()
    .optional()
    .describe(
      'TEST ONLY, never set in production: comma-separated pause points (server/test-hooks.ts) where the process waits for a resume file, so behaviour tests can kill or race it at a critical instant',
    ),
  ATELIER_TEST_PAUSE_DIR: z
    .string()
    .optional()
    .describe('TEST ONLY: directory of the pause-point marker files (see ATELIER_TEST_PAUSE_AT)'),
});

export interface Config {
  dataDir: string;
  /** the SQLite file (used when `database` is SQLite) */
  dbPath: string;
  /** The database: the SQLite file `dbPath` (default) or PostgreSQL (ATELIER_DATABASE_URL). */
  database: { kind: 'sqlite' } | { kind: 'postgres'; url: string; schema: string | null; poolMax: number };
  blobDir: string;
  /** Where blobs live: the local directory `blobDir` (default) or an S3 bucket (ATELIER_BLOB_STORE=s3://…). */
  blobStore: BlobStoreConfig;
  host: string;
  port: number;
  /** Base URL of the CDN route without a trailing slash; `null` = ATELIER_PUBLIC_URL, else derived from the bound port at start. */
  cdnUrl: string | null;
  /** ATELIER_PUBLIC_URL without a trailing slash: this server's base URL as clients reach it, or `null`. */
  publicUrl: string | null;
  /** The panels' `_meta.ui.domain`, or `null` to send none (see `panelDomain`). */
  uiDomain: string | null;
  apiKey: string | null;
  allowPrivateUrls: boolean;
  maxImportBytes: number;
  maxInputPixels: number;
  fetchTimeoutMs: number;
  allowedHosts: string[] | null;
  /** Origins allowed to call `/mcp` from a browser (CORS); `['*']` = any origin; null = CORS off. */
  corsOrigins: string[] | null;
  logLevel: z.infer<typeof EnvSchema>['ATELIER_LOG_LEVEL'];
  /** The external identity provider whose tokens /mcp accepts (ATELIER_OAUTH_EXTERNAL_ISSUER), or null for the built-in server. */
  oauthExternal: ExternalIdpConfig | null;
  /** TEST ONLY pause points (ATELIER_TEST_PAUSE_AT / _DIR); empty outside tests */
  testPause: { points: string[]; dir: string | null };
  /** Every parsed variable, for module-specific settings (read them in the composition root only). */
  env: z.infer<typeof EnvSchema>;
}

/**
 * The panels' `_meta.ui.domain` (ext-apps `McpUiResourceMeta.domain`: a stable sandbox origin, format decided by each
 * host). ATELIER_UI_DOMAIN verbatim, or none for "none"; without it and with ATELIER_PUBLIC_URL, Claude's format:
 * the first 32 hex digits of sha256 of the exact connector URL `<public URL>/mcp`, then `.claudemcpcontent.com`
 * (source: Claude's MCP Apps connector docs); otherwise none, and each host picks its own per-conversation origin.
 */
export function panelDomain(uiDomain: string | undefined, publicUrl: string | undefined): string | null {
  if (uiDomain !== undefined) return uiDomain === 'none' ? null : uiDomain;
  if (!publicUrl) return null;
  return `${createHash('sha256')
    .update(`${publicUrl.replace(/\/+$/, '')}/mcp`)
    .digest('hex')
    .slice(0, 32)}.claudemcpcontent.com`;
}

/** Thrown by `loadConfig` with every bad variable named. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid environment:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parse the environment into a `Config`.
 * @param env variables to read (default `process.env`)
 * @throws ConfigError naming every invalid variable and the rule it breaks
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const picked = Object.fromEntries(Object.keys(EnvSchema.shape).map((k) => [k, env[k] === '' ? undefined : env[k]]));
  const parsed = EnvSchema.safeParse(picked);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  }
  const e = parsed.data;
  const problems = [...blobStoreProblems(e), ...oauthProblems(e)];
  if (problems.length > 0) throw new ConfigError(problems);
  const dataDir = path.resolve(e.ATELIER_DATA_DIR);
  return {
    dataDir,
    dbPath: path.join(dataDir, 'atelier.db'),
    database: e.ATELIER_DATABASE_URL
      ? { kind: 'postgres', url: e.ATELIER_DATABASE_URL, schema: e.ATELIER_DATABASE_SCHEMA ?? null, poolMax: e.ATELIER_DATABASE_POOL_MAX }
      : { kind: 'sqlite' },
    blobDir: path.join(dataDir, 'blobs'),
    blobStore: blobStoreConfig(e),
    host: e.ATELIER_HOST,
    port: e.ATELIER_PORT,
    cdnUrl: e.ATELIER_CDN_URL ? e.ATELIER_CDN_URL.replace(/\/+$/, '') : null,
    publicUrl: e.ATELIER_PUBLIC_URL ? e.ATELIER_PUBLIC_URL.replace(/\/+$/, '') : null,
    uiDomain: panelDomain(e.ATELIER_UI_DOMAIN, e.ATELIER_PUBLIC_URL),
    apiKey: e.ATELIER_API_KEY ?? null,
    allowPrivateUrls: e.ATELIER_ALLOW_PRIVATE_URLS,
    maxImportBytes: e.ATELIER_MAX_IMPORT_BYTES,
    maxInputPixels: e.ATELIER_MAX_INPUT_PIXELS,
    fetchTimeoutMs: e.ATELIER_FETCH_TIMEOUT_MS,
    allowedHosts: e.ATELIER_ALLOWED_HOSTS
      ? e.ATELIER_ALLOWED_HOSTS.split(',')
          .map((h) => h.trim())
          .filter(Boolean)
      : null,
    corsOrigins: e.ATELIER_CORS_ORIGINS
      ? e.ATELIER_CORS_ORIGINS.split(',')
          .map((o) => o.trim().replace(/\/+$/, ''))
          .filter(Boolean)
      : null,
    logLevel: e.ATELIER_LOG_LEVEL,
    oauthExternal: externalIdpConfig(e),
    testPause: {
      points: (e.ATELIER_TEST_PAUSE_AT ?? '')
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean),
      dir: e.ATELIER_TEST_PAUSE_DIR ? path.resolve(e.ATELIER_TEST_PAUSE_DIR) : null,
    },
    env: e,
  };
}
