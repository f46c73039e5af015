import Uppy, { type UppyFile } from '@uppy/core';
import Dashboard from '@uppy/react/dashboard';
import { useEffect, useMemo, useRef, useState } from 'react';
import { ROUTER } from '../../shared/routers.ts';
import type { ImportedAsset } from '../../shared/schemas/import.ts';
import { ActionError } from '../lib/call-action.ts';
import { ErrorNotice } from '../lib/ErrorNotice.tsx';
import { humanizeError, toolResultError } from '../lib/human-error.ts';
import { useAtelierApp } from '../lib/use-atelier-app.ts';
import { McpUploader, type UploadBody, type UploadMeta } from '../lib/uppy-mcp-uploader.ts';
import { uploadActions } from './actions.ts';
import { CdnLink } from './CdnLink.tsx';
import { dataUrlPreview } from './preview.ts';

type Uploaded = Pick<ImportedAsset, 'asset_id' | 'name' | 'url' | 'kind' | 'width' | 'height' | 'format' | 'deduplicated'>;

const mib = (b: number): string => `${Math.round(b / 1024 / 1024)} MiB`;

function line(a: Uploaded): string {
  const size = a.width && a.height ? ` ${a.width}×${a.height}` : '';
  return `- ${a.name} — asset_id ${a.asset_id} — ${a.kind}${size} ${a.format}${a.deduplicated ? ' (already in the library)' : ''} — permanent URL ${a.url}`;
}

/**
 * Upload panel for `svc_asset_upload` `upload` (spec §4.7): an inline Uppy Dashboard (drag-and-drop and
 * file picker, images and video, type and size restrictions, per-file progress, retry, per-file alt
 * text and tags). Bytes go through the MCP uploader plugin in ≤ 512 KiB chunks; each finished batch
 * reaches the conversation with `updateModelContext` (all uploads so far) and `sendMessage` (a user
 * message that wakes the agent) carrying asset id, name and permanent URL. A host that offers no
 * `ui/message` (or refuses it) is not sent one: the panel says the assistant has not been told and shows
 * the text to paste.
 */
export function UploadApp() {
  const at = useAtelierApp('atelier-upload', uploadActions);
  const request = useMemo(() => uploadActions.parse(ROUTER.assetUpload, 'upload', at.toolResult), [at.toolResult]);
  const callRef = useRef(at.callAction);
  callRef.current = at.callAction;
  const appRef = useRef(at.app);
  appRef.current = at.app;
  const wsRef = useRef<string | undefined>(undefined);
  wsRef.current = request?.workspace_id;
  const panelRef = useRef<string | undefined>(undefined);
  panelRef.current = request?.panel_id;
  const [uploaded, setUploaded] = useState<Uploaded[]>([]);
  const uploadedRef = useRef<Uploaded[]>([]);
  /** the last batch's message when it did NOT reach the assistant: the host offers no `ui/message`, or refused it */
  const [handoff, setHandoff] = useState<{ text: string; why: 'not_offered' | 'refused' } | null>(null);
  const [announce, setAnnounce] = useState('');

  const [uppy] = useState(() =>
    new Uppy<UploadMeta, UploadBody>({
      id: 'atelier-upload',
      autoProceed: false,
      locale: {
        pluralize: (n: number) => (n === 1 ? 0 : 1),
        strings: {
          youCanOnlyUploadFileTypes:
            'Only images (JPEG, PNG, WebP, GIF, AVIF, TIFF, HEIC, SVG) and videos (MP4, WebM, MOV) can be uploaded here.',
        },
      },
    }).use(McpUploader, {
      call: (action, args) => callRef.current(ROUTER.assetUploadApp, action, args),
      workspaceId: () => wsRef.current,
      panelId: () => panelRef.current,
    }),
  );

  // A host that remounts the panel resends the same result: show what this panel instance already sent
  // (it reached the conversation then; nothing is sent again).
  const panelId = request?.panel_id;
  const workspaceId = request?.workspace_id;
  const callAction = at.callAction;
  useEffect(() => {
    if (!panelId || !at.connected) return;
    let live = true;
    callAction(ROUTER.assetUploadApp, 'list', { panel_id: panelId, workspace_id: workspaceId })
      .then((r) => {
        if (!live || r.uploads.length === 0) return;
        const earlier: Uploaded[] = r.uploads.map(({ asset: a }) => ({
          asset_id: a.asset_id,
          name: a.name,
          url: a.url,
          kind: a.kind,
          width: a.width,
          height: a.height,
          format: a.format,
          deduplicated: a.deduplicated,
        }));
        const known = new Set(earlier.map((u) => u.asset_id));
        uploadedRef.current = [...earlier, ...uploadedRef.current.filter((u) => !known.has(u.asset_id))];
        setUploaded(uploadedRef.current);
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [panelId, workspaceId, at.connected, callAction]);

  // Limits come from the server's answer; the server enforces them again.
  const limits = request?.limits;
  useEffect(() => {
    if (!limits) return;
    uppy.setOptions({
      restrictions: {
        maxFileSize: limits.max_file_bytes,
        allowedFileTypes: [...limits.accepted_mime_types, ...limits.accepted_extensions],
      },
    });
  }, [uppy, limits]);

  useEffect(() => {
    // Previews as data: URLs (blob: URLs are blocked by the MCP Apps default CSP).
    const onAdded = (file: UppyFile<UploadMeta, UploadBody>): void => {
      void dataUrlPreview(file.data as Blob, file.type).then((preview) => {
        if (preview && uppy.getFile(file.id)) uppy.setFileState(file.id, { preview });
      });
    };
    const onSuccess = (file: UppyFile<UploadMeta, UploadBody> | undefined, response: { body?: UploadBody }): void => {
      const a = response.body?.asset;
      if (!a) return;
      const item: Uploaded = {
        asset_id: a.asset_id,
        name: a.name,
        url: a.url,
        kind: a.kind,
        width: a.width,
        height: a.height,
        format: a.format,
        deduplicated: a.deduplicated,
      };
      uploadedRef.current = [...uploadedRef.current.filter((u) => u.asset_id !== item.asset_id), item];
      setUploaded(uploadedRef.current);
      setAnnounce(`${file?.name ?? a.name} uploaded`);
      // Formats the browser cannot preview (HEIC) get the server's rendition once stored, as a data: URL.
      if (file && !uppy.getFile(file.id)?.preview && a.kind !== 'video') {
        callRef
          .current(ROUTER.assetPanel, 'thumbnails', { asset_ids: [a.asset_id], ...(wsRef.current ? { workspace_id: wsRef.current } : {}) })
          .then((r) => {
            const url = r.thumbnails[0]?.data_url;
            if (url && uppy.getFile(file.id)) uppy.setFileState(file.id, { preview: url });
          })
          .catch(() => undefined);
      }
    };
    const onComplete = (result: { successful?: UppyFile<UploadMeta, UploadBody>[] }): void => {
      const batch = (result.successful ?? []).map((f) => f.response?.body?.asset).filter((a): a is ImportedAsset => Boolean(a));
      if (batch.length === 0) return;
      void report(batch.map((a) => uploadedRef.current.find((u) => u.asset_id === a.asset_id) ?? a));
    };
    uppy.on('file-added', onAdded);
    uppy.on('upload-success', onSuccess);
    uppy.on('complete', onComplete);
    return () => {
      uppy.off('file-added', onAdded);
      uppy.off('upload-success', onSuccess);
      uppy.off('complete', onComplete);
    };
  }, [uppy]);

  // @uppy/dashboard 6.0.3 renders a single added file as role="listitem" inside a wrapper without
  // role="list" (FileList.js, isSingleFile branch): axe's critical aria-required-parent. Give the wrapper
  // its role; Preact never sets `role` on it, so it keeps the attribute across re-renders.
  const rootRef = useRef<HTMLElement>(null);
  const hasRequest = request !== null; // the dashboard (and rootRef's element) mounts once the request arrived
  useEffect(() => {
    const root = rootRef.current;
    if (!root) return;
    const fix = (): void => root.querySelectorAll('.uppy-Dashboard-files:not([role])').forEach((el) => el.setAttribute('role', 'list'));
    fix();
    const mo = new MutationObserver(fix);
    mo.observe(root, { childList: true, subtree: true });
    return () => mo.disconnect();
  }, [hasRequest]);

  /** Hand the finished uploads to the agent: model context (all so far) + a user message (this batch). */
  async function report(batch: Uploaded[]): Promise<void> {
    const text = `I uploaded ${batch.length} file${batch.length === 1 ? '' : 's'} in the upload panel (workspace ${wsRef.current ?? '?'}):\n${batch.map(line).join('\n')}`;
    const app = appRef.current;
    if (!app) {
      setHandoff({ text, why: 'refused' });
      return;
    }
    try {
      await app.updateModelContext({
        content: [{ type: 'text', text: `Assets uploaded in the upload panel so far:\n${uploadedRef.current.map(line).join('\n')}` }],
        structuredContent: { workspace_id: wsRef.current ?? null, uploads: uploadedRef.current },
      });
    } catch {
      /* the message below still carries this batch */
    }
    if (!app.getHostCapabilities()?.message) {
      setHandoff({ text, why: 'not_offered' });
      return;
    }
    try {
      const r = await app.sendMessage({ role: 'user', content: [{ type: 'text', text }] });
      setHandoff(r.isError ? { text, why: 'refused' } : null);
    } catch {
      setHandoff({ text, why: 'refused' });
    }
  }

  if (at.cancelled)
    return (
      <main className="panel">
        <p className="notice" role="status">
          The upload request was cancelled.
        </p>
      </main>
    );
  if (at.toolResult && !request) {
    const err = humanizeError(
      toolResultError(at.toolResult) ?? new ActionError('bad_result', null, 'the upload result does not match this panel'),
    );
    return (
      <main className="panel">
        <h1 className="upload-head">Upload images or videos to the asset library</h1>
        <ErrorNotice error={err} hint="The assistant got this error too and can open the upload panel again." />
      </main>
    );
  }
  const theme = at.hostContext?.theme === 'dark' ? 'dark' : 'light';
  return (
    <main className="panel upload-panel" data-testid="upload-panel" ref={rootRef}>
      <h1 className="upload-head">Upload images or videos to the asset library</h1>
      {request ? (
        <Dashboard
          uppy={uppy}
          width="100%"
          height={340}
          theme={theme}
          proudlyDisplayPoweredByUppy={false}
          disableThumbnailGenerator
          fileManagerSelectionType="files"
          note={`Images (JPEG, PNG, WebP, GIF, AVIF, TIFF, HEIC, SVG) and videos (MP4, WebM, MOV), up to ${mib(request.limits.max_file_bytes)} each. Use ✎ to add alt text and tags.`}
          metaFields={[
            { id: 'alt_text', name: 'Alt text', placeholder: 'Describe the image for screen readers and SEO' },
            { id: 'tags', name: 'Tags', placeholder: 'comma-separated, e.g. summer, beach' },
          ]}
          doneButtonHandler={() => uppy.clear()}
        />
      ) : (
        <p className="muted">Waiting for the upload request…</p>
      )}
      <p className="sr-only" aria-live="polite">
        {announce}
      </p>
      {uploaded.length > 0 && (
        <>
          <h2 className="uploaded-head" data-testid="uploaded-head">
            {handoff ? 'Added to your library' : 'Sent to the conversation'} ({uploaded.length})
          </h2>
          <ul className="uploaded" data-testid="uploaded-list">
            {uploaded.map((u) => (
              <li key={u.asset_id} data-testid="uploaded-item" data-asset-id={u.asset_id}>
                <span className="name">{u.name}</span>
                <span className="muted">
                  {u.kind}
                  {u.width && u.height ? ` ${u.width}×${u.height}` : ''} {u.format}
                </span>
                {u.deduplicated && (
                  <span className="dedup" data-testid="already-in-library">
                    Already in your library — nothing new was stored; this is the existing asset.
                  </span>
                )}
                <CdnLink url={u.url} app={at.app} />
              </li>
            ))}
          </ul>
        </>
      )}
      {handoff && (
        <div role="status">
          <p className="muted" data-testid="handoff-note">
            {handoff.why === 'not_offered'
              ? 'This host does not let panels send messages, so the assistant has not been told.'
              : 'The host did not deliver the message.'}{' '}
            Tell the assistant you are done, or paste this:
          </p>
          <div className="handoff" data-testid="handoff">
            {handoff.text}
          </div>
        </div>
      )}
    </main>
  );
}
