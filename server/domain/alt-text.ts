/**
 * Pure text derivations of enrichment: readable words of a file name, OCR clean-up, automatic tags,
 * machine alt text, and the text an asset is embedded from.
 */
import type { DominantColour } from './colour.ts';

/** Words of a file name without extension, camera prefixes, hashes and bare numbers (`IMG_2682.heic` → ''). */
export function nameWords(name: string): string {
  const stem = name.replace(/\.[a-z0-9]{2,5}$/i, '');
  const words = stem
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0)
    .filter((w) => !/^\d+$/.test(w) && !/^(img|dsc|dscn|dscf|pxl|image|photo|screenshot|scan)$/i.test(w) && !/^[0-9a-f]{12,}$/i.test(w));
  return words.join(' ').toLowerCase();
}

/** An OCR word with its confidence (0–100). */
export interface OcrWord { text: string; confidence: number }

/**
 * Text worth indexing from an OCR result. A confident page (a document, a screenshot) keeps its full
 * text; for photos only confident words with at least two letters or digits survive, because
 * Tesseract reads texture as symbols.
 */
export function cleanOcr(text: string, pageConfidence: number, words: OcrWord[]): string | null {
  if (pageConfidence >= 75) {
    const t = text.replace(/[ \t]+/g, ' ').replace(/\n{3,}/g, '\n\n').trim();
    return t.length > 0 ? t : null;
  }
  const kept = words.filter((w) => w.confidence >= 65 && /[\p{L}\p{N}]{2,}/u.test(w.text) && /\p{L}/u.test(w.text)).map((w) => w.text.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''));
  const t = kept.filter((w) => w.length >= 2).join(' ').trim();
  return t.length > 0 ? t : null;
}

/** Orientation from width and height in px (within 5% of square counts as square). */
export function orientationOf(width: number | null, height: number | null): 'landscape' | 'portrait' | 'square' | null {
  if (!width || !height) return null;
  const r = width / height;
  return r > 1.05 ? 'landscape' : r < 0.95 ? 'portrait' : 'square';
}

/**
 * Automatic tags: colour names, `text` when OCR found words, `transparent` for alpha, `vector` for SVG.
 * Orientation is not a tag ("landscape" and "portrait" are also subjects); it is the asset's
 * `orientation` field and search filter.
 */
export function autoTags(i: { colours: DominantColour[]; hasText: boolean; hasAlpha: boolean; kind: string }): string[] {
  const tags = i.colours.filter((c) => c.share >= 0.15).map((c) => c.name);
  if (i.hasText) tags.push('text');
  if (i.hasAlpha) tags.push('transparent');
  if (i.kind === 'svg') tags.push('vector');
  return [...new Set(tags)];
}

function listWords(ws: string[]): string {
  return ws.length <= 1 ? (ws[0] ?? '') : `${ws.slice(0, -1).join(', ')} and ${ws.at(-1)}`;
}

/**
 * Machine alt text when the user gave none: subject from the generation prompt or file name, the
 * dominant colours, orientation, and up to 12 words of recognised text. Example:
 * `Prairie falcon: landscape image in brown and blue tones`.
 */
export function machineAltText(i: { name: string; prompt: string | null; colours: DominantColour[]; orientation: string | null; ocrText: string | null }): string {
  const subject = (i.prompt ?? nameWords(i.name)).trim();
  const colours = i.colours.slice(0, 3).map((c) => c.name);
  const parts: string[] = [];
  const shape = i.orientation ? `${i.orientation} image` : 'image';
  parts.push(colours.length ? `${shape} in ${listWords([...new Set(colours)])} tones` : shape);
  if (i.ocrText) {
    const words = i.ocrText.split(/\s+/).filter(Boolean);
    parts.push(`with the text "${words.slice(0, 12).join(' ')}${words.length > 12 ? ' …' : ''}"`);
  }
  const body = parts.join(' ');
  const text = subject ? `${subject.charAt(0).toUpperCase()}${subject.slice(1)}: ${body}` : `${body.charAt(0).toUpperCase()}${body.slice(1)}`;
  return text.length > 250 ? `${text.slice(0, 249)}…` : text;
}

/**
 * The text an asset is embedded from: name words, user alt text, tags, purpose, OCR text, auto tags
 * and the generation prompt (machine alt text is left out: it only restates these).
 */
export function embeddingText(i: { name: string; userAltText: string | null; tags: string[]; purpose: string | null; ocrText: string | null; autoTags: string[]; prompt: string | null }): string {
  return [nameWords(i.name), i.userAltText, i.tags.join(' '), i.purpose?.replace(/_/g, ' '), i.prompt, i.ocrText, i.autoTags.join(' ')]
    .filter((x): x is string => typeof x === 'string' && x.trim().length > 0)
    .join('. ');
}
