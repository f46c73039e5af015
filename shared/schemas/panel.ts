import { z } from 'zod';
import { AssetKindSchema, AssetPageSchema, OrientationSchema, SearchArgsSchema, SearchModeSchema } from './asset.ts';
import { IndexingSchema, UuidSchema } from './common.ts';

// ── Panel-only actions (router svc_asset_panel, MCP Apps `_meta.ui.visibility: ["app"]`) ──

/** Args of `svc_asset_panel` `thumbnails`: up to 50 asset ids of one workspace. */
export const ThumbnailsArgsSchema = z
  .object({
    asset_ids: z
      .array(UuidSchema)
      .min(1, 'must hold 1–50 asset ids')
      .max(50, 'must hold 1–50 asset ids')
      .describe('assets whose previews the panel shows'),
    size_px: z
      .number()
      .int('must be an integer')
      .min(16, 'must be 16–1280 px')
      .max(1280, 'must be 16–1280 px')
      .optional()
      .describe(
        "device px the preview must cover on both edges (the cell's CSS px × devicePixelRatio): the smallest stored rendition reaching it, else the largest; default: the 320 px thumbnail",
      ),
    workspace_id: UuidSchema.optional(),
  })
  .strict();
export type ThumbnailsArgs = z.infer<typeof ThumbnailsArgsSchema>;

/**
 * Previews as `data:` URLs: MCP Apps hosts enforce `img-src 'self' data:` by default and several ignore
 * `_meta.ui.csp.resourceDomains`, so CDN URLs may not load inside a panel (research note §6).
 */
export const ThumbnailsResultSchema = z.object({
  thumbnails: z.array(
    z.object({
      asset_id: UuidSchema,
      data_url: z
        .string()
        .nullable()
        .describe(
          'data:image/jpeg;base64,… (the 320 px thumbnail, or a larger WebP rendition when size_px asks for it); null when the asset has no raster preview',
        ),
      width: z.number().int().nullable().describe('px of the preview'),
      height: z.number().int().nullable().describe('px of the preview'),
      bytes: z.number().int().describe('bytes of the preview before base64'),
    }),
  ),
  not_found: z.array(UuidSchema).describe('requested ids absent from this workspace (foreign ids behave as missing)'),
});
export type ThumbnailsResult = z.infer<typeof ThumbnailsResultSchema>;

/** Args of `svc_asset_panel` `facets`: the picker's category browser counts under a query and kind. */
export const FacetsArgsSchema = z
  .object({
    query: z.string().trim().max(500).optional().describe('when given, count only the assets search reports as matches for it (in `mode`)'),
    mode: SearchModeSchema.optional().describe('search mode the counts follow (default all; similar counts as all)'),
    kind: AssetKindSchema.optional(),
    orientation: OrientationSchema.optional().describe('count only assets of this orientation'),
    workspace_id: UuidSchema.optional(),
  })
  .strict();
export type FacetsArgs = z.infer<typeof FacetsArgsSchema>;

export const FacetsResultSchema = z.object({
  total: z.number().int().describe('assets under the query, kind and orientation'),
  uncategorized: z.number().int().describe('of which without a category'),
  categories: z.array(
    z.object({
      category: z.string(),
      count: z.number().int(),
      subtypes: z.array(z.object({ subtype: z.string(), count: z.number().int() })).describe('subtypes with at least one asset, by count'),
    }),
  ),
});
export type FacetsResult = z.infer<typeof FacetsResultSchema>;

// ── Picker (router svc_asset_select, spec §4.2) ──

/** Args of `svc_asset_select` `select`: the same as search (spec §4.2). */
export const SelectArgsSchema = SearchArgsSchema;

/**
 * Args of `svc_asset_panel` `page`: the picker's random access into a result list (a jump to the end
 * of 10,000 assets is one call, not 200 cursor hops). Same args as search, plus `offset`; `cursor` is any
 * cursor of the same query, so every page reads the same snapshot.
 */
export const PageArgsSchema = SearchArgsSchema.safeExtend({
  offset: z
    .number()
    .int('must be an integer')
    .min(0, 'must be ≥ 0')
    .max(10_000_000)
    .describe('0-based index of the first asset of the page'),
  cursor: z.string().min(1).max(2000).describe('a next_cursor of the same query (pins its snapshot)'),
});
export type PageArgs = z.infer<typeof PageArgsSchema>;

/** An asset as delivered to the agent after a choice: name, id and original URL (spec §4.2). */
export const SelectedAssetSchema = z.object({
  position: z.number().int().describe("1-based position in the user's selection order (or rank for candidates)"),
  id: UuidSchema,
  name: z.string(),
  original_url: z.string(),
  url: z.string().describe('permanent URL for island media props'),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
});
export type SelectedAsset = z.infer<typeof SelectedAssetSchema>;

export const PickerStatusSchema = z
  .enum(['awaiting_user', 'confirmed', 'declined', 'cancelled', 'candidates', 'expired'])
  .describe(
    'awaiting_user: panel open, nothing chosen yet; confirmed: selection final; declined/cancelled: the user chose nothing; candidates: no interactive UI (or it failed), ask the user; expired: nobody confirmed in time, open a new picker',
  );

/** structuredContent of `select`. */
export const SelectResultSchema = z.object({
  picker_id: UuidSchema.describe('pass to get_selection'),
  status: PickerStatusSchema,
  delivery: z
    .enum(['panel', 'elicitation', 'text'])
    .describe(
      'panel: MCP Apps picker; elicitation: the client asked the user with a form; text: ranked candidates for the agent to present',
    ),
  selection: z.array(SelectedAssetSchema).describe('the confirmed choice in selection order (empty until confirmed)'),
  candidates: z.array(SelectedAssetSchema).describe('ranked best matches, up to limit (delivery text and elicitation)'),
  total: z.number().int().describe('assets matching the query across all pages'),
  has_more: z.boolean().describe('more matches beyond this page of candidates'),
  next_cursor: z.string().nullable().describe('pass as cursor to select again for the next page of candidates'),
  page: AssetPageSchema.nullable().describe('first page of matches for the picker panel'),
  indexing: IndexingSchema.optional(),
});
export type SelectResult = z.infer<typeof SelectResultSchema>;

export const GetSelectionArgsSchema = z.object({ picker_id: UuidSchema, workspace_id: UuidSchema.optional() }).strict();

/** structuredContent of `get_selection` and of the panel's `submit_selection`. */
export const SelectionStateSchema = z.object({
  picker_id: UuidSchema,
  status: PickerStatusSchema,
  selection: z.array(SelectedAssetSchema),
  confirmed_at: z.string().nullable().describe('ISO 8601 UTC'),
  workspace_id: UuidSchema,
});
export type SelectionState = z.infer<typeof SelectionStateSchema>;

/** structuredContent of `submit_selection`: the stored state, and whether this was a repeat of an earlier identical submit. */
export const SubmitSelectionResultSchema = SelectionStateSchema.extend({
  already_confirmed: z.boolean().describe('true when the same selection had already been confirmed (idempotent repeat)'),
});

/** Args of `svc_asset_panel` `submit_selection` (app-only): the confirmed ids in selection order. */
export const SubmitSelectionArgsSchema = z
  .object({
    picker_id: UuidSchema,
    asset_ids: z
      .array(UuidSchema)
      .min(1, 'must hold 1–50 asset ids')
      .max(50, 'must hold 1–50 asset ids')
      .superRefine((ids, ctx) => {
        const seen = new Set<string>();
        ids.forEach((id, i) => {
          if (seen.has(id.toLowerCase())) ctx.addIssue({ code: 'custom', path: [i], message: 'must not repeat an asset id' });
          seen.add(id.toLowerCase());
        });
      })
      .describe('chosen assets in selection order'),
    workspace_id: UuidSchema.optional(),
  })
  .strict();
export type SubmitSelectionArgs = z.infer<typeof SubmitSelectionArgsSchema>;
