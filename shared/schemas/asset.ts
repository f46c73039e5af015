import { z } from 'zod';
import { CursorSchema, IndexingSchema, UuidSchema } from './common.ts';

/** Asset kinds held by the library (spec §2 Asset.kind). */
export const AssetKindSchema = z.enum(['image', 'video', 'svg']);
export type AssetKind = z.infer<typeof AssetKindSchema>;

/**
 * Canonical asset categories and their subtypes. The spec names `product`, `lifestyle`, `logos_trust`
 * and the subtypes `product-shot`, `editorial`, `trust-icon`; the rest complete the taxonomy a
 * storefront builder needs for section media.
 */
export const ASSET_TAXONOMY = {
  product: ['product-shot', 'packshot', 'detail', 'composite'],
  lifestyle: ['editorial', 'scene', 'people', 'nature'],
  logos_trust: ['logo', 'trust-icon', 'badge'],
  background: ['hero-bg', 'section-bg', 'card-bg'],
  texture: ['texture-fill', 'pattern-tile'],
  decorative: ['decorative-element', 'illustration'],
  document: ['text', 'chart', 'screenshot'],
} as const;
export type AssetCategory = keyof typeof ASSET_TAXONOMY;
export const ASSET_CATEGORIES = Object.keys(ASSET_TAXONOMY) as AssetCategory[];
export const ASSET_SUBTYPES = Object.values(ASSET_TAXONOMY).flat() as string[];

/** Subtypes of a category (empty for an unknown category). */
export function subtypesOf(category: string): readonly string[] {
  return (ASSET_TAXONOMY as Record<string, readonly string[]>)[category] ?? [];
}

/** The category a subtype belongs to, or null (subtypes are unique across categories). */
export function categoryOfSubtype(subtype: string): AssetCategory | null {
  return ASSET_CATEGORIES.find((c) => subtypesOf(c).includes(subtype)) ?? null;
}

/** Zod refinement shared by every schema with both fields: the subtype must belong to the category. */
export function refineCategorySubtype(
  v: { category?: string | null | undefined; subtype?: string | null | undefined },
  ctx: z.RefinementCtx,
): void {
  if (v.category && v.subtype && !subtypesOf(v.category).includes(v.subtype)) {
    ctx.addIssue({
      code: 'custom',
      path: ['subtype'],
      message: `must be a subtype of category ${v.category}: ${subtypesOf(v.category).join(', ')}`,
    });
  }
}

export const AssetCategorySchema = z.enum(ASSET_CATEGORIES as [AssetCategory, ...AssetCategory[]]);
export const AssetSubtypeSchema = z.enum(ASSET_SUBTYPES as [string, ...string[]]);

/** Orientation of an image from its width/height in px: within 5% of 1:1 counts as square. */
export const OrientationSchema = z.enum(['landscape', 'portrait', 'square']);
export type Orientation = z.infer<typeof OrientationSchema>;

/** Search modes of spec §4.1. */
export const SearchModeSchema = z
  .enum(['all', 'filename', 'alt_text', 'tags', 'ocr', 'semantic', 'similar'])
  .describe(
    "all: words and meaning; filename, alt_text, tags, ocr (text in the image): that field's words; semantic: meaning; similar: looks like similar_to_asset_id",
  );
export type SearchMode = z.infer<typeof SearchModeSchema>;

const searchFields = {
  query: z
    .string()
    .trim()
    .max(500, 'must be at most 500 characters')
    .optional()
    .describe('words or a description; omit to browse, newest first'),
  kind: AssetKindSchema.optional(),
  mode: SearchModeSchema.default('all'),
  similar_to_asset_id: UuidSchema.optional().describe('mode similar: the asset to match'),
  category: AssetCategorySchema.optional(),
  subtype: AssetSubtypeSchema.optional(),
  orientation: OrientationSchema.optional(),
  limit: z.number().int('must be an integer').min(1, 'must be 1–50').max(50, 'must be 1–50').default(50),
  cursor: CursorSchema.optional(),
  theme_id: UuidSchema.optional().describe('required; svc_discover scope lists them'),
  brand_kit_id: UuidSchema.optional().describe('deprecated alias of theme_id').meta({ deprecated: true }),
  workspace_id: UuidSchema.optional(),
};

/** Cross-field rules of spec §4.1, shared by search and select (rule 6, theme_id, is checked by the server with candidates). */
function refineSearch(
  v: {
    query?: string | undefined;
    theme_id?: string | undefined;
    brand_kit_id?: string | undefined;
    mode: string;
    similar_to_asset_id?: string | undefined;
    category?: string | undefined;
    subtype?: string | undefined;
  },
  ctx: z.RefinementCtx,
): void {
  // A missing theme_id (rule 6) is reported by the server with the workspace's themes as candidates.
  if (v.theme_id && v.brand_kit_id && v.theme_id !== v.brand_kit_id) {
    ctx.addIssue({
      code: 'custom',
      path: ['brand_kit_id'],
      message: 'must equal theme_id when both are given (brand_kit_id is a deprecated alias)',
    });
  }
  if (v.mode === 'similar' && !v.similar_to_asset_id) {
    ctx.addIssue({ code: 'custom', path: ['similar_to_asset_id'], message: 'is required when mode is similar' });
  }
  if (v.mode === 'similar' && v.query) {
    // Refused rather than silently ignored: similar ranks by how the source image looks, not by words.
    ctx.addIssue({
      code: 'custom',
      path: ['query'],
      message: 'is not used by mode similar (it ranks by how similar_to_asset_id looks); omit query, or use mode all to search by words',
    });
  }
  if (v.mode !== 'similar' && v.similar_to_asset_id) {
    ctx.addIssue({ code: 'custom', path: ['similar_to_asset_id'], message: 'is only allowed when mode is similar' });
  }
  refineCategorySubtype(v, ctx);
}

/** Args of `svc_asset_library` `search` (spec §4.1). */
export const SearchArgsSchema = z.object(searchFields).strict().superRefine(refineSearch);
export type SearchArgs = z.infer<typeof SearchArgsSchema>;

/**
 * How a hit matched (the honest results contract): text = the query's words (their stems, or a prefix
 * of an unfinished last word) in name, alt text, tags or OCR text; typo = words after correcting a
 * misspelling; concept = a synonym or a narrower/broader term (WordNet or the operator synonym list);
 * meaning = text embedding similarity above the calibrated threshold; visual = what the picture
 * shows: visual similarity (mode similar) or the image–text model's calibrated match.
 */
export const MatchKindSchema = z.enum(['text', 'typo', 'concept', 'meaning', 'visual']);
export type MatchKind = z.infer<typeof MatchKindSchema>;
export const MatchedBySchema = z
  .array(MatchKindSchema)
  .nullable()
  .describe(
    'how this hit matched: text (the query words), typo (after correcting a misspelling), concept (synonym, narrower or broader term), meaning (embedding similarity above the calibrated threshold), visual (the picture: its measured colours, mode similar, or the image model); null when browsing',
  );
export const RelevanceSchema = z
  .number()
  .min(0)
  .max(1)
  .nullable()
  .describe(
    '0–1, comparable across modes: 1 = every query word matched exactly; 0.5 = the least a match has (suggestions score below 0.5); near-duplicates in mode similar score ≥ 0.95; null when browsing',
  );

/** Where the configured image–text model stands (ATELIER_IMAGE_MODEL), as `request.image_model` reports it. */
export const ImageModelReportSchema = z
  .object({
    model: z.string().describe('ATELIER_IMAGE_MODEL: a model id of the hub or a local folder'),
    status: z
      .enum(['loading', 'building', 'ready', 'unavailable'])
      .describe(
        'ready = its image embeddings are a signal of this search; loading / building (embedding the library) / unavailable = not used',
      ),
    reason: z.string().nullable().describe('why it is unavailable; null otherwise'),
  })
  .describe('the image–text model (search by what pictures show); absent when none is configured');
export type ImageModelReport = z.infer<typeof ImageModelReportSchema>;

/** Asset, the search result item (spec §2), plus library metadata. */
export const AssetSchema = z.object({
  id: UuidSchema,
  original_url: z.string().describe('URL of the stored original (permanent, on the CDN)'),
  thumbnail_url: z.string().describe('URL of a small JPEG preview (longest edge 320 px)'),
  url: z.string().describe('permanent URL to put in island media props (the original)'),
  name: z.string().describe('file name'),
  tags: z.array(z.string()).describe('user tags followed by automatic tags'),
  kind: AssetKindSchema,
  width: z.number().int().nullable().describe('px, after EXIF orientation'),
  height: z.number().int().nullable().describe('px, after EXIF orientation'),
  format: z.string().describe('file format, e.g. jpeg, png, webp'),
  usage_hint: z.string().describe('short suggested use'),
  alt_text: z.string().nullable(),
  category: z.string().nullable(),
  subtype: z.string().nullable(),
  orientation: OrientationSchema.nullable().describe('from width/height; null when the size is unknown'),
  relevance: RelevanceSchema,
  matched_by: MatchedBySchema,
  enrichment_status: z
    .enum(['pending', 'running', 'done', 'failed', 'skipped'])
    .describe(
      'asynchronous enrichment (OCR, colours, tags, alt text, embeddings): until done the asset is missing from ocr/semantic/similar results',
    ),
});
export type Asset = z.infer<typeof AssetSchema>;

/** Asset page (spec §2): the search response. */
export const AssetPageSchema = z.object({
  assets: z.array(AssetSchema).describe('matches only, best first; empty when nothing matches'),
  total: z.number().int().describe('matches across all pages (never counts suggestions)'),
  total_is_estimate: z
    .boolean()
    .describe(
      'true when a very common word matched so many assets that the server stopped counting: total is then an estimate, and the ranking covers the most recent of those matches',
    ),
  suggestions: z
    .array(AssetSchema)
    .describe(
      'first page only, when the query matched nothing or very little: the nearest assets that are NOT matches (relevance < 0.5), for the user to consider; empty otherwise',
    ),
  next_cursor: z.string().nullable(),
  has_more: z.boolean(),
  request: z
    .object({
      query: z.string().nullable(),
      mode: SearchModeSchema.describe('mode actually used'),
      kind: AssetKindSchema.nullable(),
      category: z.string().nullable(),
      subtype: z.string().nullable(),
      orientation: OrientationSchema.nullable(),
      limit: z.number().int(),
      theme_id: z.string(),
      workspace_id: z.string(),
      similar_to_asset_id: z.string().nullable(),
      degraded_from: SearchModeSchema.nullable().describe('requested mode when a degraded fallback was used'),
      match: z
        .enum(['browse', 'all_terms', 'any_term', 'vector', 'hybrid', 'none'])
        .describe(
          'how the query matched: all_terms / any_term (words), vector (semantic, similar), hybrid (words and meaning, mode all), none (nothing matched), browse (no query)',
        ),
      corrected_query: z
        .string()
        .nullable()
        .describe(
          'the query actually searched after correcting misspelt words ("showing results for …"); a real word the library lacks is respelt only as a guess, whose finds are suggestions; null when nothing was corrected',
        ),
      expanded_terms: z
        .array(z.string())
        .describe('concept words (synonyms, narrower or broader terms) added to the search; empty when none'),
      image_model: ImageModelReportSchema.optional(),
      indexing: IndexingSchema.optional(),
    })
    .describe('echo of the effective request'),
});
export type AssetPage = z.infer<typeof AssetPageSchema>;

/** Args of `svc_assets` `view` (spec §4.5). */
export const ViewArgsSchema = z.object({ asset_id: UuidSchema, workspace_id: UuidSchema.optional() }).strict();
/** structuredContent of `view`: the text block's JSON plus the preview's size. */
export const ViewResultSchema = z.object({
  asset_id: UuidSchema,
  url: z.string(),
  width: z.number().int().nullable().describe('px of the original'),
  height: z.number().int().nullable().describe('px of the original'),
  name: z.string(),
  preview_width: z.number().int().describe('px of the JPEG in the image block (longest edge ≤ 1568)'),
  preview_height: z.number().int(),
  preview_bytes: z.number().int().describe('bytes of the JPEG (≤ 1 MiB)'),
  alt_text: z.string().nullable().describe("the user's alt text, else the machine alt text from enrichment"),
  tags: z.array(z.string()).describe('user tags followed by automatic tags (colours, monochrome, text, transparent)'),
  ocr_text: z.string().nullable().describe('text recognised in the image (OCR), null when none or not yet enriched'),
  enrichment_status: z.enum(['pending', 'running', 'done', 'failed', 'skipped']).describe('asynchronous enrichment state'),
});

/** Capability entry (spec §2): one per enabled provider/model pair. */
export const CapabilityEntrySchema = z.object({
  provider: z.string(),
  model: z.string(),
  operations: z.array(z.enum(['generate', 'edit'])),
  aspect_ratios: z.array(z.string()),
  image_sizes: z.array(z.string()),
  output_formats: z.array(z.string()),
  max_reference_images: z.number().int(),
  credits: z.number().describe('credits charged per generated image'),
  description: z.string().optional(),
  default: z.boolean().optional().describe('true for the provider/model used when provider/model are omitted'),
});
export type CapabilityEntry = z.infer<typeof CapabilityEntrySchema>;

export const CapabilitiesArgsSchema = z.object({ workspace_id: UuidSchema.optional() }).strict();
export const CapabilitiesResultSchema = z.object({ capabilities: z.array(CapabilityEntrySchema) });
