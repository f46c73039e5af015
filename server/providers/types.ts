import type { CapabilityEntry } from '../../shared/schemas/asset.ts';

/**
 * An image generation provider: declares its models' capability entries (spec §2) and performs
 * generate/edit. Implementations live one per file in `providers/`.
 */
export interface ImageProvider {
  /** registry id, e.g. `local`, `openai`, `gemini` */
  readonly id: string;
  /** One entry per model this provider offers. */
  capabilities(): CapabilityEntry[];
}
