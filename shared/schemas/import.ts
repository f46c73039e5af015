import { z } from 'zod';
import { AssetKindSchema } from './asset.ts';
import { AltTextSchema, FileNameSchema, HttpUrlSchema, TagSchema, UuidSchema } from './common.ts';

/** One attachment of a batch import (spec §4.6). */
export const AttachmentSchema = z
  .object({
    attachment_id: z.string().min(1).max(200),
    filename: FileNameSchema.min(1).max(255).optional(),
    alt_text: AltTextSchema.optional(),
    tags: z.array(TagSchema).max(50).optional(),
    purpose: z.string().max(64).optional(),
  })
  .strict();

/** Args of `svc_asset_import` `import` (spec §4.6, rules 1–2). */
export const ImportArgsSchema = z
  .object({
    url: HttpUrlSchema.optional().describe('image to download'),
    data: z.string().min(1).optional().describe('base64 image bytes'),
    attachments: z
      .array(AttachmentSchema)
      .min(1, 'must hold at least one attachment')
      .max(20, 'must hold at most 20 attachments')
      .optional(),
    mime_type: z
      .string()
      .regex(/^[a-z]+\/[a-z0-9.+-]+$/i, 'must be a MIME type like image/png')
      .optional()
      .describe('required with data'),
    filename: FileNameSchema.min(1)
      .max(255, 'must be at most 255 characters')
      .optional()
      .describe('with extension; derived from URL or MIME type when omitted'),
    alt_text: AltTextSchema.optional(),
    tags: z.array(TagSchema).max(50, 'must hold at most 50 tags').optional(),
    purpose: z.string().trim().max(64).optional().describe('e.g. hero_bg, trust_icon'),
    workspace_id: UuidSchema.optional(),
  })
  .strict()
  .superRefine((v, ctx) => {
    const given = (['url', 'data', 'attachments'] as const).filter((k) => v[k] !== undefined);
    if (given.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        path: given.length === 0 ? ['url'] : [given[1] ?? 'url'],
        message: `exactly one of url, data, attachments is required (got ${given.length === 0 ? 'none' : given.join(' and ')})`,
      });
    }
    if (v.data !== undefined && !v.mime_type) {
      ctx.addIssue({ code: 'custom', path: ['mime_type'], message: 'is required when data is used' });
    }
    if (v.data !== undefined && !/^[A-Za-z0-9+/=\s_-]+$/.test(v.data)) {
      ctx.addIssue({ code: 'custom', path: ['data'], message: 'must be base64' });
    }
  });
export type ImportArgs = z.infer<typeof ImportArgsSchema>;

/** Imported asset (spec §2). */
export const ImportedAssetSchema = z.object({
  id: UuidSchema,
  asset_id: UuidSchema,
  url: z.string().describe('permanent URL; use it instead of the temporary source URL'),
  kind: AssetKindSchema,
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  alt_text: z.string().nullable(),
  srcset_webp: z.string().describe('responsive WebP variants, srcset syntax: "<url> <w>w, …"'),
  fallback_url: z.string().describe('JPEG (or PNG with alpha) for clients without WebP'),
  processing_status: z.enum(['ready', 'failed']),
  enrichment_status: z.enum(['pending', 'running', 'done', 'failed', 'skipped']).describe('asynchronous enrichment after import'),
  delivery_provider: z.string(),
  delivery: z.object({
    cdn_base_url: z.string(),
    original_url: z.string(),
    thumbnail_url: z.string(),
    variants: z.array(
      z.object({ url: z.string(), width: z.number().int(), height: z.number().int(), format: z.string(), size_bytes: z.number().int() }),
    ),
  }),
  name: z.string(),
  format: z.string(),
  size_bytes: z.number().int(),
  tags: z.array(z.string()),
  purpose: z.string().nullable(),
  deduplicated: z
    .boolean()
    .describe(
      'true when identical bytes (or bytes converting to an identical stored file) were already in the workspace and that asset is returned',
    ),
  converted_from: z.string().nullable().describe('source format when the input was converted (e.g. heic → png)'),
  not_applied: z
    .array(z.enum(['filename', 'alt_text', 'tags', 'purpose']))
    .optional()
    .describe(
      'deduplicated imports only: supplied fields that differ from the existing asset and were NOT applied; apply them with svc_asset_manage update',
    ),
  name_changed: z
    .array(z.enum(['decoded', 'path', 'characters', 'length', 'extension']))
    .optional()
    .describe(
      'present when the supplied filename was stored changed (name holds what was stored): decoded = %XX escapes decoded, path = directories removed, characters = control, bidi or reserved characters removed, length = cut to 255 bytes, extension = set to the real format',
    ),
});
export type ImportedAsset = z.infer<typeof ImportedAssetSchema>;

/**
 * Result of an `attachments` batch import (the spec leaves it open): one entry per attachment, in request
 * order. Each attachment succeeds or fails on its own; a failure never undoes the others and the call
 * itself is not an error. An attachment_id is the upload_id of a verified upload of the same workspace
 * (svc_asset_upload_app complete, possibly with import false); a foreign, unknown, unfinished or expired id
 * fails with `not_found` on `args.attachments[i].attachment_id`.
 */
export const ImportBatchResultSchema = z.object({
  items: z
    .array(
      z.object({
        attachment_id: z.string().describe('as given in the request'),
        status: z.enum(['imported', 'failed']),
        asset: ImportedAssetSchema.nullable().describe('the imported (or deduplicated existing) asset; null when failed'),
        error: z
          .object({
            code: z.string(),
            field: z.string().nullable().describe('e.g. args.attachments[2].attachment_id'),
            message: z.string(),
          })
          .nullable()
          .describe('why this attachment failed; null when imported'),
      }),
    )
    .describe('one entry per requested attachment, in request order'),
  imported: z.number().int().describe('count of items with status imported'),
  failed: z.number().int().describe('count of items with status failed'),
});

export const ImportResultSchema = z.union([ImportedAssetSchema, ImportBatchResultSchema]);
