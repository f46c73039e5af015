import { ROUTER } from '../../shared/actions.ts';
import type { LibraryDeps } from '../assets/deps.ts';
import { viewAsset } from '../assets/view.ts';
import type { ProviderRegistry } from '../providers/registry.ts';
import { scopeFor } from '../tenancy/scope.ts';
import { defineRouter, type RouterImpl } from './types.ts';

/** `svc_assets`: `capabilities` (spec §4.4) and `view` (spec §4.5). */
export function assetsRouter(deps: LibraryDeps, providers: ProviderRegistry): RouterImpl<typeof ROUTER.assets> {
  return defineRouter(ROUTER.assets, {
    capabilities: async (args, ctx) => {
      await scopeFor(deps.tenancy, ctx.principal, args.workspace_id);
      const capabilities = providers.capabilities();
      const text = capabilities
        .map(
          (c) =>
            `${c.provider}/${c.model}${c.default ? ' (default)' : ''}: operations ${c.operations.join(', ')}; aspect_ratios ${c.aspect_ratios.join(', ')}; image_sizes ${c.image_sizes.join(', ')}; output_formats ${c.output_formats.join(', ')}; max_reference_images ${c.max_reference_images}; ${c.credits} credit(s) per image.`,
        )
        .join('\n');
      return { structuredContent: { capabilities }, text: text || 'No image provider is enabled for this workspace.' };
    },
    view: async (args, ctx) => {
      const scope = await scopeFor(deps.tenancy, ctx.principal, args.workspace_id);
      const v = await viewAsset(deps, scope, args.asset_id);
      return {
        structuredContent: v.facts,
        content: [{ type: 'image', data: v.imageBase64, mimeType: 'image/jpeg' }],
        text: JSON.stringify({
          asset_id: v.facts.asset_id,
          url: v.facts.url,
          width: v.facts.width,
          height: v.facts.height,
          name: v.facts.name,
        }),
      };
    },
  });
}
