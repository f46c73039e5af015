import { precheckQuota } from './quota.ts';
import sharp from 'sharp';
import type { GenerateArgs, GeneratedAsset } from '../../shared/schemas/generate.ts';
import type { CreditStore } from '../db/ports/credit-store.ts';
import { resolveCapability } from '../domain/generation/capability.ts';
import type { Scope } from '../domain/scope.ts';
import { ServiceError } from '../errors.ts';
import { encodeAs } from '../providers/encode.ts';
import type { ProviderRegistry } from '../providers/registry.ts';
import type { ImageResult, InputImage } from '../providers/types.ts';
import type { LibraryDeps } from './deps.ts';
import { normaliseMask, resolveImage } from './generate-inputs.ts';
import { storeAsset } from './import.ts';

export interface GenerateDeps {
  library: LibraryDeps;
  providers: ProviderRegistry;
  credits: CreditStore;
  /** budget in credits for workspaces without their own (ATELIER_CREDIT_BUDGET); null = unlimited */
  defaultBudget: number | null;
  /** interval of "still waiting" progress notifications during a provider call, ms */
  heartbeatMs: number;
  /** how long a credit hold counts when its process dies before releasing it, ms (longer than any generation) */
  holdTtlMs: number;
}

/** Progress sink: MCP progress notifications (a no-op without a progress token). */
export type ProgressFn = (progress: number, total: number | undefined, message: string) => Promise<void> | void;

const FORMAT_OF: Record<string, string> = { jpeg: 'jpeg', jpg: 'jpeg', png: 'png', webp: 'webp' };

function slug(prompt: string): string {
  return (
    prompt
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60)
      .replace(/-+$/, '') || 'image'
  );
}

/**
 * `svc_drafts` `asset_generate` (spec §4.3, rule 4): validate against the capability entry, check the
 * budget (counting generations in flight), resolve reference images and mask, call the provider (with
 * progress), verify format and transparency on the output, then store the asset and charge exactly the
 * entry's credits by settling the hold (ledger charge and hold release, at most once per hold) in the
 * transaction that inserts the asset (`StoreInput.settle`; the credit tables live in the asset tables'
 * database): nothing is charged on any failure, and a process killed at any instant leaves either the
 * asset with its charge or neither (the hold then expires). Identical bytes already in the library make
 * no insert; their charge is settled right after (`CreditStore.settle`, a no-op for a settled hold).
 */
export function createGenerator(deps: GenerateDeps) {
  /**
   * @throws ServiceError invalid_argument (field named, allowed values listed) | not_found (reference
   *   or mask URL) | budget_exceeded | provider_failed | conversion_failed
   */
  async function generate(scope: Scope, args: GenerateArgs, progress: ProgressFn, signal: AbortSignal): Promise<GeneratedAsset> {
    const refUrls = args.reference_images ?? [];
    const r = resolveCapability(deps.providers.capabilities(), {
      provider: args.provider,
      model: args.model,
      aspect: args.aspect,
      quality: args.quality,
      transparent: args.transparent,
      aspect_ratio: args.aspect_ratio,
      image_size: args.image_size,
      output_format: args.output_format,
      referenceCount: refUrls.length,
    });
    const provider = deps.providers.get(r.entry.provider)!;
    const cost = r.entry.credits;
    const label = `${r.entry.provider}/${r.entry.model}`;

    // A tenant already at its storage quota could not keep the image: refuse before any credit is spent.
    await precheckQuota(deps.library, scope, 'args', 1);
    // Reserve the cost before any spend; holds of generations in flight (any process) count against the budget.
    const budget = (await deps.credits.budget(scope)) ?? deps.defaultBudget;
    const hold = await deps.credits.reserve(scope, cost, budget, deps.holdTtlMs);
    if (!hold.ok) {
      const remaining = Math.max(0, budget! - hold.used - hold.held);
      const affordable = deps.providers
        .capabilities()
        .filter((e) => e.credits <= remaining)
        .map((e) => `${e.provider}/${e.model} (${e.credits})`);
      throw new ServiceError(
        'budget_exceeded',
        args.model ? 'args.model' : args.provider ? 'args.provider' : null,
        `the workspace budget is exhausted: ${label} costs ${cost} credit(s) but ${remaining} of ${budget} remain${hold.held > 0 ? ` (${hold.held} reserved by generations in progress)` : ''}${affordable.length ? `; affordable: ${affordable.join(', ')}` : ''}. Nothing was generated or charged`,
        {
          details: {
            budget_credits: budget,
            used_credits: hold.used,
            held_credits: hold.held,
            remaining_credits: remaining,
            credit_cost: cost,
            affordable,
          },
        },
      );
    }
    // Progress counts steps (MCP requires it to increase); no total, since retries and heartbeats add steps.
    let step = 0;
    const report = async (message: string): Promise<void> => {
      await progress(++step, undefined, message);
    };
    try {
      const references: InputImage[] = [];
      for (const [i, url] of refUrls.entries()) {
        await report(`resolving reference image ${i + 1} of ${refUrls.length}`);
        references.push(await resolveImage(deps.library, scope, url, `args.reference_images[${i}]`));
      }
      let mask = null;
      if (args.mask_url) {
        await report('resolving the mask');
        const first = references[0]!;
        mask = await normaliseMask(await resolveImage(deps.library, scope, args.mask_url, 'args.mask_url'), first.width, first.height);
      }
      await report(`${label}: ${r.operation} started`);
      const started = Date.now();
      const heartbeat = setInterval(
        () => void report(`${label}: still working (${Math.round((Date.now() - started) / 1000)} s)`),
        deps.heartbeatMs,
      );
      let out: ImageResult;
      try {
        out = await provider.generate(
          {
            operation: r.operation,
            model: r.entry.model,
            prompt: args.prompt,
            style: args.style,
            purpose: args.purpose,
            quality: args.quality,
            aspectRatio: r.aspectRatio,
            imageSize: r.imageSize,
            outputFormat: r.outputFormat,
            transparent: args.transparent,
            brandColors: args.brand_colors ?? [],
            brandTone: args.brand_tone,
            references,
            mask,
          },
          { signal, onProgress: (m) => void report(m) },
        );
      } finally {
        clearInterval(heartbeat);
      }
      const notes = [...out.notes];
      let bytes = out.bytes;
      let meta;
      try {
        meta = await sharp(bytes).metadata();
      } catch (e) {
        throw new ServiceError('provider_failed', null, `${label} returned bytes that are not an image; nothing was charged`, {
          cause: e,
          details: { provider: r.entry.provider },
        });
      }
      const got = FORMAT_OF[meta.format ?? ''] ?? meta.format ?? 'unknown';
      if (got !== r.outputFormat) {
        bytes = await encodeAs(bytes, r.outputFormat, args.quality);
        notes.push(`${r.entry.provider} returned ${got}; converted to ${r.outputFormat}`);
      }
      const after = await sharp(bytes).metadata();
      const hasAlpha = after.hasAlpha === true && !(await sharp(bytes).stats()).isOpaque;
      if (args.transparent && !hasAlpha)
        notes.push('transparent was requested, but the returned image has no transparent pixels: it is opaque, do not use it as a cut-out');
      else if (args.transparent) notes.push('transparency verified: the image has an alpha channel with transparent pixels');
      if (out.watermark) notes.push(`watermark: ${out.watermark}`);

      await report('storing the asset in the library');
      let charged = 0;
      const provenance = {
        prompt: args.prompt,
        style: args.style,
        purpose: args.purpose,
        provider: r.entry.provider,
        model: r.entry.model,
        operation: r.operation,
        quality: args.quality,
        aspect_ratio: r.aspectRatio,
        image_size: r.imageSize,
        output_format: r.outputFormat,
        transparent_requested: args.transparent,
        has_alpha: hasAlpha,
        brand_colors: args.brand_colors ?? [],
        brand_tone: args.brand_tone ?? null,
        reference_images: refUrls,
        mask_url: args.mask_url ?? null,
        provider_params: out.params,
        revised_prompt: out.revisedPrompt ?? null,
        watermark: out.watermark,
        credit_cost: cost,
        generated_at: new Date().toISOString(),
      };
      const { asset, row } = await storeAsset(deps.library, scope, {
        bytes,
        field: 'result',
        source: 'generated',
        provenance,
        // No user alt text: a prompt is an instruction, not a description. Enrichment writes machine alt
        // text from the prompt (or a vision model's caption), and the prompt itself is embedded.
        user: {
          filename: `${slug(args.prompt)}.${r.outputFormat === 'jpeg' ? 'jpg' : r.outputFormat}`,
          tags: ['generated', args.style, args.purpose, r.entry.provider],
          purpose: args.purpose,
        },
        settle: { scope, holdId: hold.holdId, provider: r.entry.provider, model: r.entry.model, credits: cost },
      });
      await deps.library.testHooks?.pause('generate-settle');
      // The charge replaces the hold (the insert above settled it already, unless the bytes were deduplicated). Bytes already in the library (deterministic local output) make no
      // new asset, but a paid provider did the work, so its credits are charged all the same.
      await deps.credits.settle(scope, hold.holdId, {
        assetId: asset.asset_id,
        provider: r.entry.provider,
        model: r.entry.model,
        credits: cost,
      });
      charged = cost;
      if (asset.deduplicated) notes.push('identical bytes were already in the library: that asset is returned');
      const used = await deps.credits.used(scope);
      deps.library.log.info(
        {
          mod: 'generate',
          provider: r.entry.provider,
          model: r.entry.model,
          operation: r.operation,
          references: references.length,
          mask: mask !== null,
          duration_ms: Date.now() - started,
          credits: charged,
          bytes: bytes.length,
          has_alpha: hasAlpha,
        },
        'image generated',
      );
      await report('done');
      return {
        asset_id: asset.asset_id,
        url: asset.url,
        kind: 'image',
        width: row.width ?? 0,
        height: row.height ?? 0,
        format: row.format,
        provider: r.entry.provider,
        model: r.entry.model,
        operation: r.operation,
        aspect_ratio: r.aspectRatio,
        image_size: r.imageSize,
        quality: args.quality,
        credit_cost: cost,
        credits_charged: charged,
        remaining_credits: budget === null ? null : Math.max(0, budget - used),
        transparent_requested: args.transparent,
        has_alpha: hasAlpha,
        watermark: out.watermark,
        deduplicated: asset.deduplicated,
        notes,
      };
    } finally {
      await deps.credits.release(hold.holdId);
    }
  }
  return { generate };
}
export type Generator = ReturnType<typeof createGenerator>;
