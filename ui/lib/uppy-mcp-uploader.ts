import { BasePlugin, type Body, type Meta, type PluginOpts, type Uppy, type UppyFile } from '@uppy/core';
import type { ImportedAsset } from '../../shared/schemas/import.ts';
import type { UploadSession } from '../../shared/schemas/upload.ts';
import { chunkRange, missingChunks } from '../../shared/upload-chunks.ts';
import type { ActionName, ArgsIn, ResultOf } from '../../shared/actions.ts';
import type { ROUTER } from '../../shared/routers.ts';
import { humanizeError } from './human-error.ts';

type UploadRouter = typeof ROUTER.assetUploadApp;
/** Calls one action of the panel-only upload router (`svc_asset_upload_app`), typed from the registry; throws on `isError`. */
export type UploadActionCaller = <A extends ActionName<UploadRouter>>(
  action: A,
  args: ArgsIn<UploadRouter, A>,
) => Promise<ResultOf<UploadRouter, A>>;

/** Per-file metadata the Dashboard edits (`metaFields`) and the uploader sends with `begin`. */
export interface UploadMeta extends Meta {
  alt_text?: string;
  /** comma-separated, as typed */
  tags?: string;
  /** set by the uploader once a session exists */
  upload_id?: string;
}

/** `upload-success` response body: the imported asset and the finished session. */
export interface UploadBody extends Body {
  asset?: ImportedAsset;
  session?: UploadSession;
}

export interface McpUploaderOpts extends PluginOpts {
  call: UploadActionCaller;
  /** workspace the panel was opened for (from the `upload` result); re-checked by the server on every call */
  workspaceId: () => string | undefined;
  /** this panel instance (panel_id of the `upload` result), recorded with each session so a remounted panel can list them */
  panelId?: () => string | undefined;
  /** files transferred at once (default 2) */
  limit?: number;
}

const hex = (buf: ArrayBuffer): string => Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, '0')).join('');

/** base64 of bytes without building one huge argument list (`String.fromCharCode(...bytes)` overflows the stack). */
export function toBase64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/** Split "a, b ,c" into trimmed, non-empty, de-duplicated tags (≤ 64 characters each, as the server requires). */
export function parseTags(text: string | undefined): string[] | undefined {
  const tags = [
    ...new Set(
      (text ?? '')
        .split(',')
        .map((t) => t.trim().slice(0, 64))
        .filter(Boolean),
    ),
  ];
  return tags.length ? tags.slice(0, 50) : undefined;
}

class Cancelled extends Error {}

/**
 * Uppy uploader that sends files through MCP (no HTTP endpoint, so it works in any MCP Apps host): per
 * file it hashes the bytes (SHA-256, WebCrypto), `begin`s a session (which resumes an open session of
 * the same file, so Retry only sends the missing chunks), sends each missing chunk of
 * `chunk_size_bytes` (≤ 512 KiB raw) as base64 through `chunk`, then `complete`s (server verifies size
 * and sha256 and imports). It emits `upload-start`, `upload-progress`, `upload-success` and
 * `upload-error` like Uppy's own uploaders. Removing a file or cancelling aborts its session, so the
 * server discards its bytes.
 * Plugin shape as in transloadit/uppy `packages/@uppy/xhr-upload/src/index.ts` (addUploader in
 * install, removeUploader in uninstall) and `packages/@uppy/core/src/BasePlugin.ts`.
 */
export class McpUploader<M extends UploadMeta, B extends UploadBody> extends BasePlugin<McpUploaderOpts, M, B> {
  #cancelled = new Set<string>();
  #aborted = new Set<string>();

  constructor(uppy: Uppy<M, B>, opts: McpUploaderOpts) {
    super(uppy, opts);
    this.id = opts.id ?? 'McpUploader';
    this.type = 'uploader';
  }

  #onRemoved = (file: UppyFile<M, B> | undefined): void => {
    if (!file) return;
    this.#cancelled.add(file.id);
    this.#abort(file);
  };

  #onCancelAll = (): void => {
    for (const file of this.uppy.getFiles()) {
      if (file.progress.uploadStarted && !file.progress.uploadComplete) {
        this.#cancelled.add(file.id);
        this.#abort(file);
      }
    }
  };

  #abort(file: UppyFile<M, B>): void {
    const id = file.meta.upload_id;
    // cancel-all also removes every file: abort each session once
    if (!id || file.progress.uploadComplete || this.#aborted.has(id)) return;
    this.#aborted.add(id);
    this.opts.call('abort', { upload_id: id, ...this.#ws() }).catch(() => undefined);
  }

  #ws(): { workspace_id?: string } {
    const ws = this.opts.workspaceId();
    return ws ? { workspace_id: ws } : {};
  }

  #check(file: UppyFile<M, B>): void {
    if (this.#cancelled.has(file.id) || !this.uppy.getFile(file.id)) throw new Cancelled('upload cancelled');
  }

  async #uploadOne(file: UppyFile<M, B>): Promise<void> {
    this.#cancelled.delete(file.id);
    const total = file.size ?? 0;
    const started = Date.now();
    this.uppy.emit('upload-progress', this.uppy.getFile(file.id), { uploadStarted: started, bytesUploaded: 0, bytesTotal: total });
    try {
      const bytes = new Uint8Array(await (file.data as Blob).arrayBuffer());
      const sha256 = hex(await crypto.subtle.digest('SHA-256', bytes));
      this.#check(file);
      let session = await this.opts.call('begin', {
        ...this.#ws(),
        filename: file.name ?? 'upload',
        size_bytes: bytes.length,
        sha256,
        ...(file.type ? { mime_type: file.type } : {}),
        ...(file.meta.alt_text?.trim() ? { alt_text: file.meta.alt_text.trim() } : {}),
        ...(parseTags(file.meta.tags) ? { tags: parseTags(file.meta.tags) } : {}),
        ...(this.opts.panelId?.() ? { panel_id: this.opts.panelId() } : {}),
      });
      this.uppy.setFileMeta(file.id, { upload_id: session.upload_id } as unknown as M);
      const emitProgress = (s: UploadSession): void => {
        this.uppy.emit('upload-progress', this.uppy.getFile(file.id), {
          uploadStarted: started,
          bytesUploaded: s.received_bytes,
          bytesTotal: s.size_bytes,
        });
      };
      emitProgress(session);
      for (const index of missingChunks(session.chunk_count, session.received_chunks)) {
        this.#check(file);
        const { start, end } = chunkRange(session.size_bytes, session.chunk_size_bytes, index);
        session = await this.opts.call('chunk', {
          ...this.#ws(),
          upload_id: session.upload_id,
          index,
          data: toBase64(bytes.subarray(start, end)),
        });
        emitProgress(session);
      }
      this.#check(file);
      const done = await this.opts.call('complete', { ...this.#ws(), upload_id: session.upload_id });
      const body = { asset: done.asset ?? undefined, session: done.session } as B;
      this.uppy.emit('upload-success', this.uppy.getFile(file.id), { status: 200, body, uploadURL: done.asset?.url ?? '' });
    } catch (e) {
      if (e instanceof Cancelled || !this.uppy.getFile(file.id)) return;
      const err = e instanceof Error ? e : new Error(String(e));
      // Uppy shows this text on the file and in its status bar: a sentence, not "MCP error -32603: fetch failed".
      const h = humanizeError(e);
      this.uppy.emit('upload-error', this.uppy.getFile(file.id), {
        name: err.name,
        message: h.field ? `${h.message} (${h.field})` : h.message,
      });
      // A session the server discarded (failed verification, expired) is forgotten; otherwise it is kept, so
      // removing the file still aborts it, and Retry resumes it (begin finds it by name, size and sha256).
      const code = (e as { code?: string }).code;
      if (code === 'conflict' || code === 'not_found') this.uppy.setFileMeta(file.id, { upload_id: undefined } as unknown as M);
    }
  }

  #handleUpload = async (fileIDs: string[]): Promise<void> => {
    const files = fileIDs.map((id) => this.uppy.getFile(id)).filter((f) => f && !f.error);
    if (files.length === 0) return;
    this.uppy.emit('upload-start', files);
    const queue = [...files];
    const worker = async (): Promise<void> => {
      for (let f = queue.shift(); f; f = queue.shift()) await this.#uploadOne(f);
    };
    await Promise.all(Array.from({ length: Math.min(this.opts.limit ?? 2, files.length) }, worker));
  };

  override install(): void {
    this.uppy.addUploader(this.#handleUpload);
    this.uppy.on('file-removed', this.#onRemoved);
    this.uppy.on('cancel-all', this.#onCancelAll);
  }

  override uninstall(): void {
    this.uppy.removeUploader(this.#handleUpload);
    this.uppy.off('file-removed', this.#onRemoved);
    this.uppy.off('cancel-all', this.#onCancelAll);
  }
}
