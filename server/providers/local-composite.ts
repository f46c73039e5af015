import sharp, { type OverlayOptions, type Sharp } from 'sharp';
import { planPlacements, placementBox, type Placement } from '../domain/generation/placement.ts';
import { planRecipe } from '../domain/generation/procedural.ts';
import { renderRecipe, rgbOf } from './local-render.ts';
import type { ImageRequest, InputImage } from './types.ts';

/**
 * Edits and composites of the local provider, with sharp (libvips): subjects placed on a background,
 * mask edits, recolouring. Subjects keep their own alpha channel; nothing is segmented or inpainted.
 */

/** A result image: encoded bytes, or raw pixels when `raw` is set (saves an encode/decode round trip). */
export interface Composed {
  png: Buffer;
  raw?: { width: number; height: number; channels: 1 | 2 | 3 | 4 };
  notes: string[];
  params: Record<string, unknown>;
}

const SHADOW = /\b(shadow|drop shadow|grounded)\b/i;

/** A subject resized into its box, with an optional soft drop shadow built from its alpha. */
async function subjectLayers(
  img: InputImage,
  box: { left: number; top: number; width: number; height: number },
  shadow: boolean,
): Promise<OverlayOptions[]> {
  const sized = await sharp(img.bytes)
    .rotate()
    .resize(box.width, box.height, { fit: 'inside' })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const raw = { width: sized.info.width, height: sized.info.height, channels: 4 as const };
  const left = box.left + Math.floor((box.width - sized.info.width) / 2);
  const top = box.top + Math.floor((box.height - sized.info.height) / 2);
  const layers: OverlayOptions[] = [];
  if (shadow) {
    const sigma = Math.max(2, Math.round(Math.min(sized.info.width, sized.info.height) * 0.03));
    const pad = sigma * 3;
    const alpha = await sharp(sized.data, { raw }).extractChannel(3).raw().toBuffer();
    const shadowPng = await sharp({ create: { width: sized.info.width, height: sized.info.height, channels: 3, background: '#000000' } })
      .joinChannel(alpha, { raw: { ...raw, channels: 1 } })
      .extend({ top: pad, bottom: pad, left: pad, right: pad, background: { r: 0, g: 0, b: 0, alpha: 0 } })
      .blur(sigma)
      .linear([1, 1, 1, 0.45], [0, 0, 0, 0])
      .png()
      .toBuffer();
    layers.push({ input: shadowPng, left: left - pad + Math.round(sigma * 0.8), top: top - pad + Math.round(sigma * 1.2) });
  }
  layers.push({ input: sized.data, raw, left, top });
  return layers;
}

function describe(p: Placement, i: number, box: { left: number; top: number; width: number; height: number }): string {
  return `subject ${i + 1}: ${p.words.join(' ')} → box ${box.width}×${box.height} px at (${box.left}, ${box.top})`;
}

/**
 * Composite: with 2+ references the last is the background (cover-cropped to `w`×`h`) and the others
 * are subjects; with 1 reference it is the subject on a procedural background (or on a transparent
 * canvas when `transparent`). Placement comes from the prompt's placement words (domain/generation/placement.ts).
 */
export async function composite(req: ImageRequest, w: number, h: number): Promise<Composed> {
  const notes: string[] = [];
  const refs = req.references;
  const subjects = refs.length >= 2 ? refs.slice(0, -1) : refs;
  // The background and the composite run as one libvips pipeline (resize, then composite).
  let background: Sharp;
  if (refs.length >= 2) {
    background = sharp(refs[refs.length - 1]!.bytes)
      .rotate()
      .resize(w, h, { fit: 'cover', position: 'attention' });
    notes.push(`background: reference ${refs.length} cover-cropped to ${w}×${h} px`);
  } else if (req.transparent) {
    background = sharp({ create: { width: w, height: h, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } });
    notes.push('background: transparent canvas');
  } else {
    const recipe = planRecipe({ prompt: req.prompt, style: req.style, purpose: 'section_bg', brandColors: req.brandColors });
    background = sharp(await renderRecipe(recipe, w, h, false));
    notes.push(`background: procedural ${recipe.kind} in ${recipe.colors.join(', ')}`);
  }
  const recolour = /\b(duotone|tint(?:ed)?|recolou?r(?:ed)?|monochrome)\b/i.test(req.prompt);
  if (refs.length === 1 && recolour) {
    const [c0] = planRecipe({ prompt: req.prompt, style: req.style, purpose: req.purpose, brandColors: req.brandColors }).colors;
    // Two stages: within one sharp pipeline greyscale runs after tint and would undo it.
    const grey = await sharp(refs[0]!.bytes).rotate().resize(w, h, { fit: 'cover', position: 'attention' }).greyscale().png().toBuffer();
    const png = await sharp(grey).tint(rgbOf(c0!)).png().toBuffer();
    return {
      png,
      notes: [`style transfer: reference 1 cover-cropped and tinted ${c0} (greyscale + tint)`],
      params: { mode: 'tint', tint: c0 },
    };
  }
  const placements = planPlacements(req.prompt, subjects.length);
  const shadow = SHADOW.test(req.prompt);
  const layers: OverlayOptions[] = [];
  const boxes = [];
  for (const [i, img] of subjects.entries()) {
    const p = placements[i]!;
    const box = placementBox(p, w, h, img.width, img.height);
    boxes.push({ ...box, words: p.words });
    notes.push(describe(p, i, box));
    layers.push(...(await subjectLayers(img, box, shadow)));
  }
  if (shadow) notes.push("soft drop shadow from each subject's alpha");
  if (subjects.some((s) => s.mime === 'image/jpeg'))
    notes.push('JPEG subjects have no alpha channel, so they are placed as rectangles (the local provider does not cut out backgrounds)');
  const out = await background.composite(layers).raw().toBuffer({ resolveWithObject: true });
  return {
    png: out.data,
    raw: { width: out.info.width, height: out.info.height, channels: out.info.channels },
    notes,
    params: {
      mode: 'composite',
      subjects: subjects.length,
      background: refs.length >= 2 ? 'reference' : req.transparent ? 'transparent' : 'procedural',
      boxes,
      shadow,
    },
  };
}

const REMOVE = /\b(remove|erase|delete|cut ?out|transparent|clear)\b/i;
const FILTERS: [RegExp, string][] = [
  [/\bblur(?:red)?\b/i, 'blur'],
  [/\b(grayscale|greyscale|black and white|desaturate[d]?)\b/i, 'greyscale'],
  [/\b(darken|darker)\b/i, 'darken'],
  [/\b(lighten|brighten|lighter|brighter)\b/i, 'lighten'],
];

/**
 * Mask edit of the first reference: only pixels inside the mask (white in `req.mask.png`) change.
 * The edit is, by the prompt's words: remove (alpha 0; needs png/webp), blur, greyscale, darken, lighten,
 * a fill from the last reference when there are 2+, else a procedural fill in the brand colours.
 * The output keeps the first reference's size.
 */
export async function maskEdit(req: ImageRequest): Promise<Composed & { width: number; height: number }> {
  const base = req.references[0]!;
  const mask = req.mask!;
  const { width: w, height: h } = mask;
  const basePng = await sharp(base.bytes).rotate().resize(w, h, { fit: 'fill' }).ensureAlpha().png().toBuffer();
  // sharp applies operations in a fixed order, not call order: build multi-step images from raw stages.
  const rawMask = { raw: { width: w, height: h, channels: 1 as const } };
  const maskAlpha = await sharp(mask.png).extractChannel(0).raw().toBuffer();
  const maskRgba = await sharp({ create: { width: w, height: h, channels: 3, background: '#ffffff' } })
    .joinChannel(maskAlpha, rawMask)
    .png()
    .toBuffer();
  const alphaOk = req.outputFormat === 'png' || req.outputFormat === 'webp';
  if (REMOVE.test(req.prompt) && alphaOk) {
    const png = await sharp(basePng)
      .composite([{ input: maskRgba, blend: 'dest-out' }])
      .png()
      .toBuffer();
    return { png, width: w, height: h, notes: ['mask edit: masked region made transparent'], params: { mode: 'mask', edit: 'remove' } };
  }
  let fill: Buffer;
  let edit: string | undefined;
  const filter = FILTERS.find(([re]) => re.test(req.prompt))?.[1];
  const pipe = sharp(basePng);
  if (filter === 'blur')
    fill = await pipe
      .blur(Math.max(3, Math.round(Math.min(w, h) * 0.02)))
      .png()
      .toBuffer();
  else if (filter === 'greyscale') fill = await pipe.greyscale().toColourspace('srgb').png().toBuffer();
  else if (filter === 'darken') fill = await pipe.modulate({ brightness: 0.6 }).png().toBuffer();
  else if (filter === 'lighten') fill = await pipe.modulate({ brightness: 1.35 }).png().toBuffer();
  else if (req.references.length >= 2)
    fill = await sharp(req.references[req.references.length - 1]!.bytes)
      .rotate()
      .resize(w, h, { fit: 'cover', position: 'attention' })
      .png()
      .toBuffer();
  else {
    const recipe = planRecipe({ prompt: req.prompt, style: req.style, purpose: req.purpose, brandColors: req.brandColors });
    fill = await renderRecipe(recipe, w, h, false);
    edit = `procedural ${recipe.kind} fill in ${recipe.colors.join(', ')}`;
  }
  edit ??= filter ?? `fill from reference ${req.references.length}`;
  // Keep the fill only where the mask is white, then lay it over the base.
  const fillRgb = await sharp(fill).removeAlpha().raw().toBuffer();
  const fillMasked = await sharp(fillRgb, { raw: { width: w, height: h, channels: 3 } })
    .joinChannel(maskAlpha, rawMask)
    .png()
    .toBuffer();
  const png = await sharp(basePng)
    .composite([{ input: fillMasked }])
    .png()
    .toBuffer();
  return {
    png,
    width: w,
    height: h,
    notes: [`mask edit: ${edit} inside the mask; pixels outside the mask are unchanged`],
    params: { mode: 'mask', edit },
  };
}
