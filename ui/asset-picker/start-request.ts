import { AssetKindSchema, OrientationSchema, type AssetKind, type Orientation } from '../../shared/schemas/asset.ts';

/** The effective request the picker starts from: the select result's page echo, else the tool input. */
export interface StartRequest {
  query: string | null;
  kind: AssetKind | null;
  category: string | null;
  subtype: string | null;
  orientation: Orientation | null;
  theme_id: string;
  workspace_id: string | null;
}

/**
 * The picker's starting request: the page echo of the select result, or (a host that gave no page) the
 * tool input's args, read field by field with the shared schemas (the host's input is not trusted).
 */
export function startRequest(page: { request: StartRequest } | null | undefined, args: Record<string, unknown>): StartRequest | null {
  if (page) return page.request;
  const theme = args.theme_id ?? args.brand_kit_id;
  if (typeof theme !== 'string') return null;
  const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
  return {
    query: str(args.query),
    kind: AssetKindSchema.safeParse(args.kind).data ?? null,
    category: str(args.category),
    subtype: str(args.subtype),
    orientation: OrientationSchema.safeParse(args.orientation).data ?? null,
    theme_id: theme,
    workspace_id: str(args.workspace_id),
  };
}
