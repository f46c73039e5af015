import type { CapabilityEntry } from '../../shared/schemas/asset.ts';

/** One input image, bytes as received (already size-checked and sniffed by the use case). */
export interface InputImage {
  bytes: Buffer;
  /** sniffed MIME type, e.g. `image/png` */
  mime: string;
  width: number;
  height: number;
}

/** What a provider is asked to do; every value was checked against its capability entry first. */
export interface ImageRequest {
  operation: 'generate' | 'edit';
  model: string;
  /** the caller's prompt, unchanged */
  prompt: string;
  style: string;
  purpose: string;
  quality: 'low' | 'medium' | 'high';
  /** ratio from the entry's `aspect_ratios`, e.g. `16:9` */
  aspectRatio: string;
  /** size from the entry's `image_sizes`, e.g. `1K` */
  imageSize: string;
  /** format from the entry's `output_formats` */
  outputFormat: string;
  transparent: boolean;
  /** `#rrggbb`, possibly empty */
  brandColors: string[];
  brandTone: string | undefined;
  /** ordered reference images (edit/composite/style transfer); empty for generate */
  references: InputImage[];
  /**
   * Edit region of the first reference: a single-channel PNG of the first reference's size where
   * 255 (white) marks pixels to edit and 0 pixels to keep (normalised from the caller's mask, whose
   * transparent or white regions mark the edit area).
   */
  mask: { png: Buffer; width: number; height: number } | null;
}

/** What a provider returns: the image bytes plus honest facts about how they were made. */
export interface ImageResult {
  bytes: Buffer;
  /** provider-side parameters actually sent (for provenance; never secrets) */
  params: Record<string, unknown>;
  /** a provider-applied watermark, e.g. Google SynthID; null when none */
  watermark: string | null;
  /** remarks for the caller (what the provider did, what it could not do) */
  notes: string[];
  revisedPrompt?: string | null;
}

export interface GenerateOptions {
  /** aborted when the MCP request is cancelled */
  signal: AbortSignal;
  /** progress message for MCP progress notifications (e.g. "waiting for openai, retry 1 in 2 s") */
  onProgress?: (message: string) => void;
}

/**
 * An image generation provider: declares its models' capability entries (spec §2) and performs
 * generate/edit. Implementations live one per file in `providers/`.
 */
export interface ImageProvider {
  /** registry id, e.g. `local`, `openai`, `gemini` */
  readonly id: string;
  /** One entry per model this provider offers. */
  capabilities(): CapabilityEntry[];
  /**
   * Produce one image.
   * @throws ServiceError provider_failed (remote failure, refusal, no image) | invalid_argument (input the provider rejects)
   */
  generate(req: ImageRequest, opts: GenerateOptions): Promise<ImageResult>;
}
