import type { CapabilityEntry } from '../../shared/schemas/asset.ts';
import type { ImageProvider } from './types.ts';

/**
 * The always-on offline provider: a deterministic procedural generator and compositor built on sharp
 * (gradients, textures, patterns, masks, composites). It is not a diffusion model. 0 credits.
 */
export function createLocalProvider(): ImageProvider {
  const entry: CapabilityEntry = {
    provider: 'local',
    model: 'atelier-compositor-1',
    operations: ['generate', 'edit'],
    aspect_ratios: ['1:1', '4:3', '3:4', '3:2', '2:3', '16:9', '9:16', '21:9'],
    image_sizes: ['512px', '1K', '2K', '4K'],
    output_formats: ['png', 'jpeg', 'webp'],
    max_reference_images: 16,
    credits: 0,
    description: 'Offline procedural backgrounds, textures and patterns in brand colours, mask edits and composites with sharp. Deterministic; not a diffusion model.',
    default: true,
  };
  return { id: 'local', capabilities: () => [entry] };
}
