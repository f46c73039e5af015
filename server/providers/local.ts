import type { CapabilityEntry } from '../../shared/schemas/asset.ts';
import { dimensionsFor } from '../domain/media/image-size.ts';
import { planRecipe } from '../domain/generation/procedural.ts';
import { encodeAs } from './encode.ts';
import { composite, maskEdit, type Composed } from './local-composite.ts';
import { renderRecipe } from './local-render.ts';
import type { ImageProvider, ImageRequest, ImageResult } from './types.ts';

export const LOCAL_MODEL = 'atelier-compositor-1';

const HONEST =
  'local provider: deterministic procedural generator and compositor (sharp/libvips), not a diffusion model; it does not draw objects from the prompt';

/**
 * The always-on offline provider: a deterministic procedural generator and compositor built on sharp
 * (gradients, textures, patterns, masks, composites). It is not a diffusion model. 0 credits.
 * - generate: a recipe from prompt/style/purpose (domain/generation/procedural.ts) in `brand_colors`, at the
 *   requested ratio and size;
 * - edit with a mask: the edit applies inside the mask only (local-composite.ts `maskEdit`);
 * - edit without a mask: composite (subjects placed by the prompt's placement words on the last
 *   reference or a procedural background), or tint for style transfer.
 */
export function createLocalProvider(): ImageProvider {
  const entry: CapabilityEntry = {
    provider: 'local',
    model: LOCAL_MODEL,
    operations: ['generate', 'edit'],
    aspect_ratios: ['1:1', '4:3', '3:4', '3:2', '2:3', '16:9', '9:16', '21:9'],
    image_sizes: ['512px', '1K', '2K', '4K'],
    output_formats: ['png', 'jpeg', 'webp'],
    max_reference_images: 16,
    credits: 0,
    description:
      'Offline procedural backgrounds, textures and patterns in brand colours, mask edits and composites with sharp. Deterministic; not a diffusion model.',
  };
  return {
    id: 'local',
    capabilities: () => [entry],
    async generate(req: ImageRequest, opts): Promise<ImageResult> {
      const { width: w, height: h } = dimensionsFor(req.aspectRatio, req.imageSize, 8);
      let png: Buffer;
      let raw: Composed['raw'];
      let notes: string[];
      let params: Record<string, unknown>;
      if (req.operation === 'edit' && req.mask) {
        opts.onProgress?.('applying the mask edit');
        const r = await maskEdit(req);
        ({ png, notes, params } = r);
        notes.push(`mask edits keep the first reference's size (${r.width}×${r.height} px)`);
      } else if (req.operation === 'edit') {
        opts.onProgress?.(`compositing ${req.references.length} reference image(s)`);
        ({ png, raw, notes, params } = await composite(req, w, h));
      } else {
        opts.onProgress?.('rendering the procedural image');
        const recipe = planRecipe({ prompt: req.prompt, style: req.style, purpose: req.purpose, brandColors: req.brandColors });
        png = await renderRecipe(recipe, w, h, req.transparent);
        notes = [
          `procedural ${recipe.kind} (chosen by ${recipe.because.join(', ')}) in ${recipe.colors.join(', ')}${recipe.grain ? ' with grain' : ''}`,
        ];
        params = {
          mode: 'procedural',
          recipe: recipe.kind,
          colors: recipe.colors,
          angle_deg: recipe.angleDeg,
          grain: recipe.grain,
          seed: recipe.seed,
        };
      }
      opts.signal.throwIfAborted();
      const bytes = await encodeAs(png, req.outputFormat, req.quality, raw);
      return { bytes, params: { ...params, output_format: req.outputFormat }, watermark: null, notes: [HONEST, ...notes] };
    },
  };
}
