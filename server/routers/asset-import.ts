import { ISLAND_MEDIA_PROPS, ROUTER } from '../../shared/actions.ts';
import type { ImportedAsset } from '../../shared/schemas/import.ts';
import { printable } from '../domain/printable.ts';
import type { LibraryDeps } from '../assets/deps.ts';
import { importAsset, type AttachmentResolver } from '../assets/import.ts';
import { scopeFor } from '../tenancy/scope.ts';
import { defineRouter, type RouterImpl } from './types.ts';

const USE_URL = `Put the permanent url in ${ISLAND_MEDIA_PROPS}.`;

type Supplied = Partial<Record<'filename' | 'alt_text' | 'tags' | 'purpose', unknown>>;

/** For a deduplicated import whose metadata was not applied: what differs and the call that applies it. */
function notAppliedNote(a: ImportedAsset, supplied: Supplied): string {
  if (!a.not_applied?.length) return '';
  const update: Record<string, unknown> = { asset_id: a.asset_id };
  for (const f of a.not_applied) update[f] = supplied[f];
  return ` — supplied fields not applied: ${a.not_applied.join(', ')} (the existing asset keeps its metadata). To apply them call svc_asset_manage update ${JSON.stringify(update)}`;
}

function line(a: ImportedAsset, supplied: Supplied = {}): string {
  return `${a.deduplicated ? 'Already in the library (identical bytes), returning the existing asset' : 'Imported'}: ${printable(a.name)} — asset_id ${a.asset_id} — ${a.kind} ${a.width ?? '?'}×${a.height ?? '?'} ${a.format}${a.converted_from ? ` (converted from ${a.converted_from})` : ''} — permanent url ${a.url} (use it instead of the source URL) — fallback ${a.fallback_url}${notAppliedNote(a, supplied)}`;
}

/** `svc_asset_import` `import` (spec §4.6). */
export function assetImportRouter(deps: LibraryDeps, attachments?: AttachmentResolver): RouterImpl<typeof ROUTER.assetImport> {
  return defineRouter(ROUTER.assetImport, {
    import: async (args, ctx) => {
      const scope = await scopeFor(deps.tenancy, ctx.principal, args.workspace_id);
      let step = 0;
      const result = await importAsset(
        deps,
        scope,
        args,
        attachments,
        (message) => void ctx.progress(++step, undefined, message).catch(() => undefined),
      );
      if ('items' in result) {
        const text = [
          `${result.imported} imported, ${result.failed} failed.`,
          ...result.items.map((i, n) =>
            i.asset
              ? line(i.asset, { ...args, ...args.attachments?.[n] })
              : `Failed ${i.attachment_id}: ${i.error?.code} ${i.error?.field}: ${i.error?.message}`,
          ),
          ...(result.imported ? [USE_URL] : []),
        ].join('\n');
        return { structuredContent: result, text };
      }
      return { structuredContent: result, text: `${line(result, args)}\n${USE_URL}` };
    },
  });
}
