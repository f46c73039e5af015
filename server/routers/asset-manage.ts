import { ROUTER } from '../../shared/actions.ts';
import type { LibraryDeps } from '../assets/deps.ts';
import { deleteAssets, updateAsset, type AssetChangedHook } from '../assets/manage.ts';
import { scopeFor } from '../tenancy/scope.ts';
import { defineRouter, type RouterImpl } from './types.ts';
import { printable } from '../domain/printable.ts';

/** `svc_asset_manage`: `update` (user metadata) and `delete` (spec §1 names both as workspace-scoped operations). */
export function assetManageRouter(deps: LibraryDeps, onChanged: AssetChangedHook | null): RouterImpl<typeof ROUTER.assetManage> {
  return defineRouter(ROUTER.assetManage, {
    update: async (args, ctx) => {
      const scope = await scopeFor(deps.tenancy, ctx.principal, args.workspace_id);
      const a = await updateAsset(deps, scope, args, onChanged);
      const text =
        `${a.changed.length ? `Updated ${a.changed.join(', ')} of` : 'No change to'} ${printable(a.name)} — id ${a.id}` +
        ` — alt: ${a.alt_text ?? '(none yet)'} — tags: ${a.tags.join(', ') || '(none)'}` +
        `${a.category ? ` — category ${a.category}${a.subtype ? `/${a.subtype}` : ''}` : ''} — url: ${a.url}` +
        `${a.changed.length ? '. Search reflects the new text at once; semantic search after re-embedding (seconds).' : '.'}`;
      return { structuredContent: a, text };
    },
    delete: async (args, ctx) => {
      const scope = await scopeFor(deps.tenancy, ctx.principal, args.workspace_id);
      const r = await deleteAssets(deps, scope, args.asset_ids);
      const lines = [
        `Deleted ${r.deleted.length} asset(s)${r.deleted.length ? `: ${r.deleted.map((d) => `${printable(d.name)} (${d.asset_id})`).join(', ')}` : ''}.`,
        ...(r.not_found.length ? [`Not found in this workspace: ${r.not_found.join(', ')}.`] : []),
        ...(r.still_served.length
          ? [`Still served because another asset of yours has identical bytes: ${r.still_served.join(', ')}.`]
          : []),
        ...(r.deleted.length ? ['Remove their URLs from any page that uses them.'] : []),
      ];
      return { structuredContent: r, text: lines.join('\n') };
    },
  });
}
