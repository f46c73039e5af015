import { ROUTER } from '../../shared/actions.ts';
import type { UploadSession } from '../../shared/schemas/upload.ts';
import type { LibraryDeps } from '../assets/deps.ts';
import type { UploadService } from '../assets/upload.ts';
import { scopeFor } from '../tenancy/scope.ts';
import { defineRouter, type RouterImpl } from './types.ts';
import { printable } from '../domain/printable.ts';

function progress(s: UploadSession): string {
  return `upload ${s.upload_id} (${printable(s.filename)}): ${s.status}, ${s.received_chunks.length}/${s.chunk_count} chunks, ${s.received_bytes}/${s.size_bytes} bytes, expires ${s.expires_at}`;
}

/**
 * `svc_asset_upload_app`: the panel-only (MCP Apps `visibility: ['app']`) chunked upload channel.
 * Every action resolves the scope from the caller's API key again; a session of another tenant or
 * workspace is `not_found`, exactly like a missing one.
 */
export function assetUploadAppRouter(deps: LibraryDeps, uploads: UploadService): RouterImpl<typeof ROUTER.assetUploadApp> {
  const scope = (principal: Parameters<typeof scopeFor>[1], workspaceId: string | undefined) =>
    scopeFor(deps.tenancy, principal, workspaceId);
  return defineRouter(ROUTER.assetUploadApp, {
    begin: async (args, ctx) => {
      const s = await uploads.begin(await scope(ctx.principal, args.workspace_id), args);
      return {
        structuredContent: s,
        text: `${s.resumed ? 'Resumed' : 'Began'} ${progress(s)}; send chunks of ${s.chunk_size_bytes} bytes.`,
      };
    },
    chunk: async (args, ctx) => {
      const s = await uploads.chunk(await scope(ctx.principal, args.workspace_id), args);
      return { structuredContent: s, text: `Stored chunk ${args.index} of ${progress(s)}.` };
    },
    status: async (args, ctx) => {
      const s = await uploads.status(await scope(ctx.principal, args.workspace_id), args.upload_id);
      return { structuredContent: s, text: progress(s) };
    },
    complete: async (args, ctx) => {
      const r = await uploads.complete(await scope(ctx.principal, args.workspace_id), args);
      const text = r.asset
        ? `${r.asset.deduplicated ? 'Already in the library (identical bytes)' : 'Uploaded'}: ${printable(r.asset.name)} — asset_id ${r.asset.asset_id} — ${r.asset.kind} ${r.asset.width ?? '?'}×${r.asset.height ?? '?'} ${r.asset.format}${r.asset.converted_from ? ` (converted from ${r.asset.converted_from})` : ''} — permanent url ${r.asset.url}`
        : `Staged ${progress(r.session)}; import it with svc_asset_import import {"attachments": [{"attachment_id": "${r.session.upload_id}"}]} before it expires.`;
      return { structuredContent: r, text };
    },
    list: async (args, ctx) => {
      const items = await uploads.listPanel(await scope(ctx.principal, args.workspace_id), args.panel_id);
      return {
        structuredContent: { uploads: items },
        text: `${items.length} upload(s) of panel ${args.panel_id}${items.map((u) => `\n- ${printable(u.asset.name)} — asset_id ${u.asset.asset_id} — ${u.asset.url}`).join('')}`,
      };
    },
    abort: async (args, ctx) => {
      const s = await uploads.abort(await scope(ctx.principal, args.workspace_id), args.upload_id);
      return { structuredContent: s, text: `Aborted ${progress(s)}; its bytes were discarded.` };
    },
  });
}
