import { z } from 'zod';
import { ImportedAssetSchema } from './import.ts';
import { AltTextSchema, FileNameSchema, TagSchema, TimestampSchema, UuidSchema } from './common.ts';

/**
 * Wire types of the upload channel (spec §4.7 and the `attachments` of §4.6): the model-visible
 * `svc_asset_upload` `upload` and the panel-only (MCP Apps `visibility: ['app']`) router
 * `svc_asset_upload_app` that carries the bytes in base64 chunks of at most 512 KiB raw.
 */

/** Largest raw chunk the channel accepts: 512 KiB (≈ 683 KiB as base64, under the ~1 MB tool-argument limit of hosts). */
export const MAX_UPLOAD_CHUNK_BYTES = 512 * 1024;

/** MIME types the upload panel offers (images incl. HEIC/HEIF and SVG, plus MP4/WebM/QuickTime video). */
export const UPLOAD_MIME_TYPES = [
  'image/jpeg',
  'image/png',
  'image/webp',
  'image/gif',
  'image/avif',
  'image/tiff',
  'image/heic',
  'image/heif',
  'image/svg+xml',
  'video/mp4',
  'video/webm',
  'video/quicktime',
] as const;

/** File extensions matching `UPLOAD_MIME_TYPES` (browsers report no MIME type for HEIC on some systems). */
export const UPLOAD_EXTENSIONS = [
  '.jpg',
  '.jpeg',
  '.png',
  '.webp',
  '.gif',
  '.avif',
  '.tif',
  '.tiff',
  '.heic',
  '.heif',
  '.svg',
  '.mp4',
  '.webm',
  '.mov',
] as const;

const Sha256Schema = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, 'must be a sha256 hex digest (64 hex characters)')
  .describe('sha256 hex digest of the whole file');

/** Args of `svc_asset_upload` `upload` (spec §4.7). */
export const UploadArgsSchema = z
  .object({
    workspace_id: UuidSchema.optional(),
    theme_id: UuidSchema.optional().describe('theme the uploads are for'),
  })
  .strict();
export type UploadArgs = z.infer<typeof UploadArgsSchema>;

/** Limits the panel enforces before sending (the server enforces them again). */
export const UploadLimitsSchema = z.object({
  max_file_bytes: z.number().int().describe('largest accepted file, bytes'),
  chunk_size_bytes: z.number().int().describe('raw bytes per chunk (the last chunk may be shorter), ≤ 524288'),
  accepted_mime_types: z.array(z.string()),
  accepted_extensions: z.array(z.string()),
  session_ttl_ms: z.number().int().describe('an upload not touched for this long is discarded, ms'),
});
export type UploadLimits = z.infer<typeof UploadLimitsSchema>;

/** structuredContent of `upload`: returns at once; the panel does the rest. */
export const UploadPanelResultSchema = z.object({
  status: z
    .enum(['awaiting_user', 'no_panel'])
    .describe(
      'awaiting_user: the panel is open, assets arrive later in the conversation; no_panel: the client shows no panels, nothing will arrive (see the text for alternatives)',
    ),
  workspace_id: UuidSchema,
  theme_id: UuidSchema.nullable(),
  panel_available: z.boolean().describe('true when the client declared MCP Apps support (io.modelcontextprotocol/ui)'),
  panel_id: UuidSchema.describe('this panel instance: uploads begun from it can be listed again after the host remounts the panel'),
  limits: UploadLimitsSchema,
});
export type UploadPanelResult = z.infer<typeof UploadPanelResultSchema>;

/** Args of `svc_asset_upload_app` `begin`: declare one file; resumes an open session of the same file. */
export const UploadBeginArgsSchema = z
  .object({
    workspace_id: UuidSchema.optional(),
    filename: FileNameSchema.min(1, 'must not be empty').max(255, 'must be at most 255 characters').describe('file name with extension'),
    size_bytes: z.number().int('must be an integer').min(1, 'must be at least 1 byte').describe('exact size of the file, bytes'),
    sha256: Sha256Schema,
    mime_type: z
      .string()
      .max(100)
      .regex(/^([a-z]+\/[a-z0-9.+-]+)?$/i, 'must be a MIME type like image/png or empty')
      .optional()
      .describe('as reported by the browser; the server sniffs the real type'),
    alt_text: AltTextSchema.optional(),
    tags: z.array(TagSchema).max(50, 'must hold at most 50 tags').optional(),
    purpose: z.string().trim().max(64).optional().describe('e.g. hero_bg, trust_icon'),
    panel_id: UuidSchema.optional().describe(
      'the upload panel instance (panel_id of the upload result), so a remounted panel can list what it sent',
    ),
  })
  .strict();
export type UploadBeginArgs = z.infer<typeof UploadBeginArgsSchema>;

const UploadRefArgs = { workspace_id: UuidSchema.optional(), upload_id: UuidSchema.describe('from begin') };

/** Args of `svc_asset_upload_app` `chunk`. */
export const UploadChunkArgsSchema = z
  .object({
    ...UploadRefArgs,
    index: z
      .number()
      .int('must be an integer')
      .min(0, 'must be ≥ 0')
      .describe('0-based chunk index; chunk i covers bytes [i × chunk_size_bytes, …)'),
    data: z
      .string()
      .min(1, 'must not be empty')
      .max(Math.ceil(MAX_UPLOAD_CHUNK_BYTES / 3) * 4 + 8, 'is longer than a 512 KiB chunk in base64')
      .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be standard base64')
      .describe("base64 of the chunk's raw bytes"),
  })
  .strict();
export type UploadChunkArgs = z.infer<typeof UploadChunkArgsSchema>;

/** Args of `status` and `abort`. */
export const UploadRefArgsSchema = z.object(UploadRefArgs).strict();
export type UploadRefArgs = z.infer<typeof UploadRefArgsSchema>;

/** Args of `complete`: verify and (by default) import. */
export const UploadCompleteArgsSchema = z
  .object({
    ...UploadRefArgs,
    import: z
      .boolean()
      .default(true)
      .describe('true: import into the library now (panel); false: keep staged as an attachment for svc_asset_import attachments'),
  })
  .strict();
export type UploadCompleteArgs = z.infer<typeof UploadCompleteArgsSchema>;

/** State of one upload session, returned by begin, chunk, status and abort. */
export const UploadSessionSchema = z.object({
  upload_id: UuidSchema.describe('also the attachment_id for svc_asset_import attachments once staged'),
  workspace_id: UuidSchema,
  status: z
    .enum(['receiving', 'staged', 'imported', 'failed', 'aborted'])
    .describe(
      'receiving: chunks arriving; staged: verified, waiting as attachment; imported: asset created; failed: verification or import failed (bytes discarded)',
    ),
  filename: z.string(),
  size_bytes: z.number().int(),
  sha256: z.string(),
  chunk_size_bytes: z.number().int(),
  chunk_count: z.number().int(),
  received_chunks: z.array(z.number().int()).describe('indexes already stored, ascending; resume by sending the others'),
  received_bytes: z.number().int(),
  asset_id: UuidSchema.nullable(),
  error: z.object({ code: z.string(), field: z.string().nullable(), message: z.string() }).nullable(),
  expires_at: TimestampSchema.describe('the session and its bytes are discarded after this time unless touched'),
  resumed: z.boolean().describe('begin only: true when an open session of the same file was resumed'),
});
export type UploadSession = z.infer<typeof UploadSessionSchema>;

/** Result of `complete`: the session, plus the asset when imported. */
export const UploadCompleteResultSchema = z.object({
  session: UploadSessionSchema,
  asset: ImportedAssetSchema.nullable(),
});
export type UploadCompleteResult = z.infer<typeof UploadCompleteResultSchema>;

/** Args of `svc_asset_upload_app` `list`: the uploads an upload panel instance imported. */
export const UploadListArgsSchema = z.object({ workspace_id: UuidSchema.optional(), panel_id: UuidSchema }).strict();
export type UploadListArgs = z.infer<typeof UploadListArgsSchema>;

/** Result of `list`: imported sessions of the panel with their assets, in completion order (deleted assets are left out). */
export const UploadListResultSchema = z.object({
  uploads: z.array(z.object({ session: UploadSessionSchema, asset: ImportedAssetSchema })),
});
export type UploadListResult = z.infer<typeof UploadListResultSchema>;

export { Sha256Schema };
