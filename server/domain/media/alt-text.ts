/**
 * Pure text derivations of enrichment: readable words of a file name, OCR clean-up, automatic tags,
 * machine alt text, and the text an asset is embedded from.
 */
import { MONOCHROME, type DominantColour } from './colour.ts';
import { STOP_WORDS } from '../search/query-words.ts';

/**
 * Camera, phone and app prefixes and generic words of machine-made file names (IMG_2682, DSC_0001,
 * PXL_20240101_…, GOPR0042, Screenshot 2024-…, WhatsApp Image …): they say nothing about the picture.
 */
const MACHINE_NAME_WORDS = new Set(
  'img image images imag pic pict picture photo photos dsc dscn dscf dcim pxl mvimg gopr gp dji sam sdc vid video mov mvi wa whatsapp signal telegram screenshot screen shot scan scanned capture edited edit copy export final untitled unnamed download file unsplash pexels pixabay shutterstock istock istockphoto gettyimages adobestock'.split(
    ' ',
  ),
);

/**
 * Readable words of a file name: extension dropped; camelCase, snake_case, kebab-case and
 * letter/digit boundaries split; camera prefixes and generic words, hashes, UUID parts, counters and
 * dates dropped; single letters and stop words dropped. `IMG_2682.heic` → '', `DSC0001-RedBarn.jpeg` → 'red barn',
 * `prairie_falcon.jpg` → 'prairie falcon'.
 */
export function nameWords(name: string): string {
  const stem = name.replace(/\.[a-z0-9]{2,5}$/i, '');
  const tokens = stem.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  const words: string[] = [];
  for (const token of tokens) {
    if (MACHINE_NAME_WORDS.has(token.toLowerCase())) continue;
    // a hash or UUID part: long hex with digits, or any long letter+digit mix
    if (/^[0-9a-f]{8,}$/i.test(token) && /\d/.test(token)) continue;
    if (token.length >= 12 && /\d/.test(token) && /\p{L}/u.test(token)) continue;
    const parts = token
      .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
      .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
      .replace(/(\p{L})(\p{N})/gu, '$1 $2')
      .replace(/(\p{N})(\p{L})/gu, '$1 $2')
      .split(' ');
    for (const p of parts) {
      const w = p.toLowerCase();
      if (w.length < 2 || /^\p{N}+$/u.test(w) || MACHINE_NAME_WORDS.has(w) || STOP_WORDS.has(w)) continue;
      words.push(w);
    }
  }
  return words.join(' ');
}

/** An OCR word with its confidence (0–100). */
export interface OcrWord {
  text: string;
  confidence: number;
}

/**
 * Text worth indexing from an OCR result. A confident page (a document, a screenshot) keeps its full
 * text; for photos only confident words with at least two letters or digits survive, because
 * Tesseract reads texture as symbols.
 */
export function cleanOcr(text: string, pageConfidence: number, words: OcrWord[]): string | null {
  if (pageConfidence >= 75) {
    const t = text
      .replace(/[ \t]+/g, ' ')
      .replace(/\n{3,}/g, '\n\n')
      .trim();
    return t.length > 0 ? t : null;
  }
  const kept = words
    .filter((w) => w.confidence >= 65 && /[\p{L}\p{N}]{2,}/u.test(w.text) && /\p{L}/u.test(w.text))
    .map((w) => w.text.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''));
  const t = kept
    .filter((w) => w.length >= 2)
    .join(' ')
    .trim();
  return t.length > 0 ? t : null;
}

/** Orientation from width and height in px (within 5% of square counts as square). */
export function orientationOf(width: number | null, height: number | null): 'landscape' | 'portrait' | 'square' | null {
  if (!width || !height) return null;
  const r = width / height;
  return r > 1.05 ? 'landscape' : r < 0.95 ? 'portrait' : 'square';
}

/** The automatic tags that mark a measured fact (`autoTags`), not a word about what the picture shows. */
export const MARKER_TAGS: ReadonlySet<string> = new Set([MONOCHROME, 'text', 'transparent', 'vector']);

/**
 * Automatic tags: colour names, `monochrome` for a picture without hue (domain/media/colour.ts `isMonochrome`),
 * `text` when OCR found words, `transparent` for alpha, `vector` for SVG.
 * Orientation is not a tag ("landscape" and "portrait" are also subjects); it is the asset's
 * `orientation` field and search filter.
 */
export function autoTags(i: {
  colours: DominantColour[];
  monochrome?: boolean;
  hasText: boolean;
  hasAlpha: boolean;
  kind: string;
}): string[] {
  const tags = i.colours.filter((c) => c.share >= 0.15).map((c) => c.name);
  if (i.monochrome) tags.push(MONOCHROME);
  if (i.hasText) tags.push('text');
  if (i.hasAlpha) tags.push('transparent');
  if (i.kind === 'svg') tags.push('vector');
  return [...new Set(tags)];
}

/**
 * Machine alt text when the user gave none: the subject (generation prompt, else file-name words, with
 * the kinds its compound words name) and up to 12 words of recognised text. Colours and orientation are
 * facts and filters of the asset, not words of its text (lexical queries would hit them by accident).
 * Examples: `Prairie falcon`, `Notocactus minimus (cactus)`, `Image with the text "SALE 50%"`.
 * @param i.heads head nouns of the name's compound words (domain/search/concepts.ts `compoundHeads`),
 *   shown only for a subject taken from the file name
 */
export function machineAltText(i: { name: string; prompt: string | null; ocrText: string | null; heads?: string[] }): string {
  let subject = (i.prompt ?? nameWords(i.name)).trim();
  if (subject && i.prompt === null && i.heads?.length) subject = `${subject} (${i.heads.join(', ')})`;
  let text = subject ? `${subject.charAt(0).toUpperCase()}${subject.slice(1)}` : '';
  if (i.ocrText) {
    const ws = i.ocrText.split(/\s+/).filter(Boolean);
    const quoted = `"${ws.slice(0, 12).join(' ')}${ws.length > 12 ? ' …' : ''}"`;
    text = text ? `${text}, with the text ${quoted}` : `Image with the text ${quoted}`;
  }
  if (!text) text = 'Image';
  return text.length > 250 ? `${text.slice(0, 249)}…` : text;
}

/**
 * The text an asset is embedded from: name words, user alt text, tags, purpose, OCR text, auto tags
 * and the generation prompt (machine alt text is left out: it only restates these).
 */
export function embeddingText(i: {
  name: string;
  userAltText: string | null;
  tags: string[];
  purpose: string | null;
  ocrText: string | null;
  autoTags: string[];
  prompt: string | null;
}): string {
  return [nameWords(i.name), i.userAltText, i.tags.join(' '), i.purpose?.replace(/_/g, ' '), i.prompt, i.ocrText, i.autoTags.join(' ')]
    .filter((x): x is string => typeof x === 'string' && x.trim().length > 0)
    .join('. ');
}

/**
 * What an asset is embedded from when it has no words at all (no name words, metadata or text): its
 * kind and dominant colours, so every analysed asset still gets a text vector (orientation stays out:
 * "landscape" and "portrait" are also subjects). `photo. green blue`
 */
export function fallbackEmbeddingText(i: { kind: string; colours: string[] }): string {
  return [i.kind === 'svg' ? 'vector graphic' : i.kind === 'video' ? 'video' : 'photo', i.colours.join(' ')]
    .filter((x) => x.length > 0)
    .join('. ');
}
