import { z } from 'zod';
import { HexColorSchema, HttpUrlSchema, UuidSchema } from './common.ts';

/** Visual styles of spec §4.3. */
export const GenerateStyleSchema = z.enum([
  'photography',
  'editorial',
  'abstract',
  'texture',
  '3d_render',
  'illustration',
  'flat_lay',
  'lifestyle',
]);
/** Intended uses of spec §4.3. */
export const GeneratePurposeSchema = z.enum([
  'hero_bg',
  'product_lifestyle',
  'texture_fill',
  'decorative_element',
  'section_bg',
  'card_bg',
  'pattern_tile',
  'product_composite',
]);
export const QualitySchema = z.enum(['low', 'medium', 'high']);

/**
 * Args of `svc_drafts` `asset_generate` (spec §4.3) with the spec's defaults. Rule 4 (`mask_url` needs
 * a reference image) is a schema rule. Provider/model-specific values (aspect_ratio, image_size,
 * output_format, the reference count) are checked against the capability entry by the use case.
 */
export const GenerateArgsSchema = z
  .object({
    prompt: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(32000, 'must be at most 32000 characters')
      .describe('what to make; for a composite, where the product goes and how large'),
    style: GenerateStyleSchema,
    purpose: GeneratePurposeSchema,
    aspect: z.enum(['landscape', 'square', 'portrait']).default('landscape').describe('aspect_ratio overrides it'),
    quality: QualitySchema.default('medium'),
    transparent: z.boolean().default(false).describe('transparent background; the result says if it is'),
    reference_images: z
      .array(HttpUrlSchema)
      .min(1, 'must hold 1–16 URLs when given')
      .max(16, 'must hold 1–16 URLs')
      .optional()
      .describe('images to edit or combine: product first, background last'),
    mask_url: HttpUrlSchema.optional().describe('white or transparent = area to edit'),
    provider: z.string().trim().min(1).max(64).optional().describe('default when omitted'),
    model: z.string().trim().min(1).max(128).optional(),
    aspect_ratio: z
      .string()
      .trim()
      .regex(/^\d{1,2}:\d{1,2}$/, 'must look like 16:9')
      .optional()
      .describe('e.g. 16:9'),
    image_size: z.string().trim().min(1).max(16).optional().describe('e.g. 1K, 2K'),
    output_format: z.string().trim().toLowerCase().min(1).max(16).optional().describe('e.g. png, jpeg'),
    brand_colors: z.array(HexColorSchema).max(12, 'must hold at most 12 colours').optional().describe('hex colours, e.g. #1f3a5f'),
    brand_tone: z.string().trim().max(200).optional().describe('e.g. calm, premium'),
    workspace_id: UuidSchema.optional(),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.mask_url !== undefined && (v.reference_images?.length ?? 0) === 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['mask_url'],
        message: 'requires at least one reference_images entry (rule 4): the mask applies to the first reference image',
      });
    }
  });
export type GenerateArgs = z.infer<typeof GenerateArgsSchema>;

/** Generated asset (spec §2) plus what was actually done, so nothing is claimed that did not happen. */
export const GeneratedAssetSchema = z.object({
  asset_id: UuidSchema,
  url: z.string().describe('permanent URL on the CDN; put it in island media props'),
  kind: z.literal('image'),
  width: z.number().int().describe('px'),
  height: z.number().int().describe('px'),
  format: z.string().describe('stored format: png, jpeg or webp'),
  provider: z.string(),
  model: z.string(),
  operation: z.enum(['generate', 'edit']).describe('edit when reference_images were given (edit, composite or style transfer)'),
  aspect_ratio: z.string(),
  image_size: z.string(),
  quality: QualitySchema,
  credit_cost: z.number().describe('credits of this provider/model pair per image'),
  credits_charged: z.number().describe('credits charged for this call (0 when nothing was charged)'),
  remaining_credits: z.number().nullable().describe('workspace budget left after this call; null = no budget set (unlimited)'),
  transparent_requested: z.boolean(),
  has_alpha: z.boolean().describe('the stored image has an alpha channel with at least one non-opaque pixel (checked on the output)'),
  watermark: z.string().nullable().describe('provider-applied watermark, if any (e.g. SynthID)'),
  deduplicated: z.boolean().describe('identical bytes were already in the library; that asset is returned'),
  notes: z.array(z.string()).describe('honest remarks: what the provider is, transparency outcome, format conversions'),
});
export type GeneratedAsset = z.infer<typeof GeneratedAssetSchema>;
