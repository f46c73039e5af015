import { ROUTER } from '../../shared/routers.ts';
import { AssetPageSchema } from '../../shared/schemas/asset.ts';
import { ThumbnailsResultSchema } from '../../shared/schemas/panel.ts';
import { actionClient } from '../lib/call-action.ts';

/** The actions the search results panel calls (only their result schemas are bundled). */
export const searchActions = actionClient({
  [ROUTER.assetLibrary]: { search: AssetPageSchema },
  [ROUTER.assetPanel]: { thumbnails: ThumbnailsResultSchema },
});
