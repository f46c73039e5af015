import { ROUTER } from '../../shared/actions.ts';
import type { ImportArgs, ImportedAsset } from '../../shared/schemas/asset.ts';
import type { LibraryDeps } from '../library/deps.ts';
import { importAsset, type AttachmentResolver } from '../library/import.ts';
import { scopeFor } from '../tenancy/scope.ts';
import { handler, type RouterImpl } from './types.ts';

function line(a: ImportedAsset): string {
  return `${a.deduplicated ? 'Already in the library (identical bytes), returning the existing asset' : 'Imported'}: ${a.name} — asset_id ${a.asset_id} — ${a.kind} ${a.width ?? '?'}×${a.height ?? '?'} ${a.format}${a.converted_from ? ` (converted from ${a.converted_from})` : ''} — permanent url ${a.url} (use it instead of the source URL) — fallback ${a.fallback_url}`;
}

/** `svc_asset_import` `import` (spec §4.6). */
export function assetImportRouter(deps: LibraryDeps, attachments?: AttachmentResolver): RouterImpl {
  return {
    name: ROUTER.assetImport,
    handlers: {
      import: handler<ImportArgs>(async (args, ctx) => {
        const scope = scopeFor(deps.tenancy, ctx.principal, args.workspace_id);
        const result = await importAsset(deps, scope, args, attachments);
        if ('items' in result) {
          const text = [`${result.imported} imported, ${result.failed} failed.`, ...result.items.map((i) => (i.asset ? line(i.asset) : `Failed ${i.attachment_id}: ${i.error?.code} ${i.error?.field}: ${i.error?.message}`))].join('\n');
          return { structuredContent: result, text };
        }
        return { structuredContent: result, text: line(result) };
      }),
    },
  };
}
