import { z } from 'zod';
import { AssetCategorySchema, AssetSchema, AssetSubtypeSchema, refineCategorySubtype } from './asset.ts';
import { AltTextSchema, FileNameSchema, TagSchema, UuidSchema } from './common.ts';

/** User metadata fields an update can set (spec §2: user metadata stays authoritative over enrichment). */
export const USER_FIELDS = ['filename', 'alt_text', 'tags', 'purpose'] as const;

/**
 * Args of `svc_asset_manage` `update`: change an asset's user metadata. Given fields become user
 * metadata (enrichment never overwrites them); `alt_text: null` hands alt text back to enrichment
 * (machine alt text). `tags` replaces the user tags. category/subtype override what purpose implies.
 */
export const UpdateAssetArgsSchema = z
  .object({
    asset_id: UuidSchema,
    filename: FileNameSchema.min(1, 'must not be empty').max(255, 'must be at most 255 characters').optional().describe('with extension'),
    alt_text: AltTextSchema.min(1, 'must not be empty (use null to clear)')
      .nullable()
      .optional()
      .describe('null hands it back to automatic alt text'),
    tags: z.array(TagSchema).max(50, 'must hold at most 50 tags').optional().describe("replaces the user's tags"),
    purpose: z.string().trim().min(1).max(64).nullable().optional().describe('e.g. hero_bg, trust_icon'),
    category: AssetCategorySchema.nullable().optional(),
    subtype: AssetSubtypeSchema.nullable().optional(),
    workspace_id: UuidSchema.optional(),
  })
  .strict()
  .superRefine((v, ctx) => {
    const fields = ['filename', 'alt_text', 'tags', 'purpose', 'category', 'subtype'] as const;
    if (!fields.some((f) => v[f] !== undefined)) {
      ctx.addIssue({ code: 'custom', path: ['filename'], message: `at least one of ${fields.join(', ')} is required` });
    }
    refineCategorySubtype(v, ctx);
  });
export type UpdateAssetArgs = z.infer<typeof UpdateAssetArgsSchema>;

/** Result of `update`: the asset as search returns it, plus which fields are user metadata. */
export const UpdateAssetResultSchema = AssetSchema.extend({
  purpose: z.string().nullable(),
  user_fields: z.array(z.enum(USER_FIELDS)).describe('fields set by a user (import, upload or update); enrichment never overwrites them'),
  changed: z.array(z.string()).describe('fields whose value changed in this call'),
});
export type UpdateAssetResult = z.infer<typeof UpdateAssetResultSchema>;

/** Args of `svc_asset_manage` `delete`. */
export const DeleteAssetsArgsSchema = z
  .object({
    asset_ids: z.array(UuidSchema).min(1, 'must hold at least one asset id').max(50, 'must hold at most 50 asset ids'),
    workspace_id: UuidSchema.optional(),
  })
  .strict();
export type DeleteAssetsArgs = z.infer<typeof DeleteAssetsArgsSchema>;

/** Result of `delete`. */
export const DeleteAssetsResultSchema = z.object({
  deleted: z
    .array(
      z.object({
        asset_id: UuidSchema,
        name: z.string(),
        url: z.string().describe("the asset's original URL; it answers 404 unless listed in still_served"),
      }),
    )
    .describe('in request order'),
  not_found: z.array(z.string()).describe('ids that are not assets of this workspace (already deleted, or never existed here)'),
  still_served: z
    .array(z.string())
    .describe('URLs of deleted assets whose identical bytes belong to another asset, so the CDN keeps serving them'),
});
export type DeleteAssetsResult = z.infer<typeof DeleteAssetsResultSchema>;
