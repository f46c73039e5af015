import { ISLAND_MEDIA_PROPS, ROUTER } from '../../shared/actions.ts';
import type { GeneratedAsset } from '../../shared/schemas/generate.ts';
import type { LibraryDeps } from '../assets/deps.ts';
import type { Generator } from '../assets/generate.ts';
import { scopeFor } from '../tenancy/scope.ts';
import { defineRouter, type RouterImpl } from './types.ts';

function summary(g: GeneratedAsset): string {
  const credits = `${g.credits_charged} credit(s) charged${g.remaining_credits === null ? '' : `, ${g.remaining_credits} remaining`}`;
  const alpha = g.transparent_requested
    ? g.has_alpha
      ? ' Transparency verified.'
      : ' NOT transparent: the output has no transparent pixels.'
    : '';
  return `Generated ${g.kind} ${g.width}×${g.height} ${g.format} with ${g.provider}/${g.model} (${g.operation}, ${g.aspect_ratio}, ${g.image_size}, quality ${g.quality}) — asset_id ${g.asset_id} — url ${g.url} (put it in ${ISLAND_MEDIA_PROPS}) — ${credits}.${alpha}\nNotes: ${g.notes.join(' | ')}`;
}

/** `svc_drafts`: `asset_generate` (spec §4.3). */
export function draftsRouter(deps: LibraryDeps, generator: Generator): RouterImpl<typeof ROUTER.drafts> {
  return defineRouter(ROUTER.drafts, {
    asset_generate: async (args, ctx) => {
      const scope = await scopeFor(deps.tenancy, ctx.principal, args.workspace_id);
      const g = await generator.generate(scope, args, (p, t, m) => ctx.progress(p, t, m), ctx.signal);
      return { structuredContent: g, text: summary(g) };
    },
  });
}
