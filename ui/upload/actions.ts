import { ROUTER } from '../../shared/routers.ts';
import { ThumbnailsResultSchema } from '../../shared/schemas/panel.ts';
import {
  UploadCompleteResultSchema,
  UploadListResultSchema,
  UploadPanelResultSchema,
  UploadSessionSchema,
} from '../../shared/schemas/upload.ts';
import { actionClient } from '../lib/call-action.ts';

/** The actions the upload panel calls (only their result schemas are bundled). */
export const uploadActions = actionClient({
  [ROUTER.assetUpload]: { upload: UploadPanelResultSchema },
  [ROUTER.assetUploadApp]: {
    begin: UploadSessionSchema,
    chunk: UploadSessionSchema,
    status: UploadSessionSchema,
    complete: UploadCompleteResultSchema,
    list: UploadListResultSchema,
    abort: UploadSessionSchema,
  },
  [ROUTER.assetPanel]: { thumbnails: ThumbnailsResultSchema },
});
