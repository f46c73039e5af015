import type { App } from '@modelcontextprotocol/ext-apps';
import { AskAssistant } from './AskAssistant.tsx';

/** The user message that asks the assistant to open the upload panel (it then calls svc_asset_upload upload). */
export const UPLOAD_REQUEST_TEXT =
  'My asset library is empty. Please open the upload panel (svc_asset_upload upload) so I can add images, or tell me how to import them from a link.';

/**
 * "Your library is empty — upload or import" with the upload action: a button that asks the assistant,
 * through `ui/message`, to open the upload panel. Hosts without `ui/message` get the same advice as
 * text (a panel cannot open another panel by itself).
 * @param kind the asset kind the request was limited to, if any ("No videos in your library")
 */
export function EmptyLibrary({ app, kind }: { app: App | null; kind?: string | null | undefined }) {
  const what = kind === 'image' ? 'images' : kind === 'video' ? 'videos' : kind === 'svg' ? 'SVGs' : null;
  return (
    <section className="notice notice-empty" data-testid="empty-library" aria-labelledby="empty-library-title">
      <h2 id="empty-library-title" className="notice-title">
        {what ? `No ${what} in your library yet` : 'Your library is empty'} — upload or import
      </h2>
      <p className="notice-hint">Upload files from this device, or ask the assistant to import an image from a link or generate one.</p>
      <AskAssistant
        app={app}
        text={UPLOAD_REQUEST_TEXT}
        label="Upload files"
        done="Asked the assistant to open the upload panel."
        fallback="Ask the assistant to “open the upload panel” to add files."
        testIdPrefix="upload"
      />
    </section>
  );
}
