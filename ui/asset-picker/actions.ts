import { ROUTER } from '../../shared/routers.ts';
import { AssetPageSchema } from '../../shared/schemas/asset.ts';
import {
  FacetsResultSchema,
  SelectionStateSchema,
  SelectResultSchema,
  SubmitSelectionResultSchema,
  ThumbnailsResultSchema,
} from '../../shared/schemas/panel.ts';
import { actionClient } from '../lib/call-action.ts';

/** The actions the picker calls (only their result schemas are bundled). */
export const pickerActions = actionClient({
  [ROUTER.assetLibrary]: { search: AssetPageSchema },
  [ROUTER.assetSelect]: { select: SelectResultSchema, get_selection: SelectionStateSchema },
  [ROUTER.assetPanel]: {
    thumbnails: ThumbnailsResultSchema,
    facets: FacetsResultSchema,
    page: AssetPageSchema,
    submit_selection: SubmitSelectionResultSchema,
  },
});
