import { randomUUID } from 'node:crypto';
import { ISLAND_MEDIA_PROPS, ROUTER } from '../../shared/actions.ts';
import type { UploadPanelResult } from '../../shared/schemas/upload.ts';
import type { LibraryDeps } from '../assets/deps.ts';
import type { UploadService } from '../assets/upload.ts';
import { scopeFor, themeFor } from '../tenancy/scope.ts';
import { defineRouter, type RouterImpl } from './types.ts';

const mib = (b: number): string => `${(b / 1024 / 1024).toFixed(b % (1024 * 1024) === 0 ? 0 : 1)} MiB`;

/**
 * `svc_asset_upload` `upload` (spec §4.7): returns at once; in an MCP Apps host the upload panel does
 * the transfer and each finished upload reaches the conversation as a user message with asset id,
 * name and permanent URL. The text is complete for clients without panels (alternatives spelled out).
 */
export function assetUploadRouter(deps: LibraryDeps, uploads: UploadService): RouterImpl<typeof ROUTER.assetUpload> {
  return defineRouter(ROUTER.assetUpload, {
    upload: async (args, ctx) => {
      const scope = await scopeFor(deps.tenancy, ctx.principal, args.workspace_id);
      const theme = args.theme_id ? await themeFor(deps.tenancy, scope, args) : null;
      const limits = uploads.limits();
      const panel = ctx.clientRendersPanels;
      const result: UploadPanelResult = {
        status: panel ? 'awaiting_user' : 'no_panel',
        workspace_id: scope.workspaceId,
        theme_id: theme?.id ?? null,
        panel_available: panel,
        panel_id: randomUUID(),
        limits,
      };
      const accepted = 'images (JPEG, PNG, WebP, GIF, AVIF, TIFF, HEIC/HEIF → PNG, SVG) and video (MP4, WebM, MOV)';
      const text = panel
        ? [
            `The upload panel is open for workspace ${scope.workspaceId}. Nothing is uploaded yet: the user picks or drops files (${accepted}, up to ${mib(limits.max_file_bytes)} each) and may type alt text and tags.`,
            `Each finished upload arrives in the conversation as a user message with its asset_id, name and permanent URL; put that URL in ${ISLAND_MEDIA_PROPS}. Do not claim an upload happened before that message, and do not poll: end your turn or continue with other work.`,
            'If the user says the panel does not work, ask for a public URL (svc_asset_import import with url) or for the file as an attachment (svc_asset_import import with attachments).',
          ].join('\n')
        : [
            `This client did not declare MCP Apps support, so no upload panel can open here and nothing was uploaded (workspace ${scope.workspaceId}).`,
            'To get a file from the user into the library instead:',
            '- a public link: svc_asset_import import {"url": "<https URL>"}',
            '- bytes you hold: svc_asset_import import {"data": "<base64>", "mime_type": "image/png", "filename": "…"}',
            '- conversation attachments the client staged: svc_asset_import import {"attachments": [{"attachment_id": "<id>", "alt_text": "…"}]}',
            `Accepted: ${accepted}, up to ${mib(limits.max_file_bytes)}. Video is accepted through uploads and attachments only.`,
          ].join('\n');
      return { structuredContent: result, text };
    },
  });
}
