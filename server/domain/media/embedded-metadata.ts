/**
 * What a photo's own embedded metadata says it shows: the caption and keywords its author wrote in XMP,
 * IPTC or EXIF (Lightroom, Photoshop, digiKam, Picasa, agency and museum workflows write them), as photo
 * libraries such as Immich and Lightroom index them. Pure: the fields come from
 * server/enrichment/embedded-metadata.ts, which reads them from the file.
 */

/**
 * The descriptive fields of one file, each the first non-empty of its standards in the order of the IPTC
 * Photo Metadata Standard's mapping (XMP, then IPTC IIM, then EXIF / Windows XP tags):
 * title (dc:title, IIM 2:05 Object Name, XPTitle), headline (photoshop:Headline, IIM 2:105), description
 * (dc:description, IIM 2:120 Caption-Abstract, EXIF ImageDescription, XPSubject), keywords (dc:subject ∪ IIM
 * 2:25 Keywords ∪ XPKeywords), and the camera's make and model (to recognise a caption that only names it).
 */
export interface EmbeddedFields {
  title: string | null;
  headline: string | null;
  description: string | null;
  keywords: string[];
  make: string | null;
  model: string | null;
}

/** What search and alt text take from the fields: `caption` null when no field describes the picture. */
export interface EmbeddedDescription {
  caption: string | null;
  keywords: string[];
}

/** `caption_model_id` of an asset whose caption is its file's own description rather than a vision model's. */
export const EMBEDDED_CAPTION_SOURCE = 'embedded-metadata';

/** Longest caption kept, characters (the machine alt text's limit). */
export const CAPTION_MAX_CHARS = 250;
/** Most keywords kept, and the longest one, characters. */
export const KEYWORDS_MAX = 20;
const KEYWORD_MAX_CHARS = 64;

/**
 * Text cameras and tools write when nobody described the photo (letters only, lower case): "OLYMPUS
 * DIGITAL CAMERA", "SONY DSC", Picasa's "Image-Description", Huawei's "EXIF_JPEG_PICTURE"… A caption that is
 * one of these, ends in "digital camera", or only repeats the camera's make or model says nothing.
 */
const PLACEHOLDERS: ReadonlySet<string> = new Set([
  'sonydsc',
  'imagedescription',
  'exifjpegpicture',
  'jpegpicture',
  'digitalcamera',
  'dcim',
  'default',
  'untitled',
  'notitle',
  'nodescription',
  'description',
  'title',
  'caption',
  'image',
  'photo',
  'picture',
  'camera',
  'none',
  'null',
  'undefined',
]);

/** Lower-case letters and digits of a text, for comparing placeholders. */
const letters = (s: string): string => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

/** Whitespace collapsed, control characters dropped. */
const clean = (s: string | null | undefined): string =>
  (s ?? '')
    .replace(/\p{Cc}+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();

/**
 * Whether `text` describes the picture, rather than being a camera's or tool's placeholder: at least 3
 * letters, not in PLACEHOLDERS, not ending in "digital camera", not the camera's make or model (or both).
 */
export function isDescriptive(text: string, camera: { make: string | null; model: string | null }): boolean {
  const l = letters(text);
  if ((l.match(/\p{L}/gu) ?? []).length < 3) return false;
  if (PLACEHOLDERS.has(l) || l.endsWith('digitalcamera')) return false;
  const make = letters(clean(camera.make));
  const model = letters(clean(camera.model));
  return l !== make && l !== model && l !== `${make}${model}`;
}

/** `text` cut to `max` characters at a word boundary, with "…" when cut. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = text.slice(0, max - 1);
  const space = head.lastIndexOf(' ');
  return `${(space > max / 2 ? head.slice(0, space) : head).replace(/[\s,;:.–-]+$/u, '')}…`;
}

/**
 * The caption and keywords of a file's descriptive fields. The caption is the description (else the
 * headline), led by the title when the title adds words ("Prairie falcon female with eggs. Adult female
 * prairie falcon flying from a nest…"), at most CAPTION_MAX_CHARS; placeholders (`isDescriptive`) are
 * dropped. Keywords: trimmed, with a letter, without placeholders or repeats (case-insensitive), at most
 * KEYWORDS_MAX of at most 64 characters; a Lightroom hierarchical keyword ("People|Marie Curie") keeps its leaf.
 */
export function describeEmbedded(f: EmbeddedFields): EmbeddedDescription {
  const camera = { make: f.make, model: f.model };
  const ok = (s: string | null): string | null => {
    const c = clean(s);
    return c && isDescriptive(c, camera) ? c : null;
  };
  const title = ok(f.title);
  const body = ok(f.description) ?? ok(f.headline);
  let caption = body ?? title;
  if (title && body && !body.toLowerCase().includes(title.toLowerCase())) caption = `${title.replace(/[.\s]+$/u, '')}. ${body}`;
  const seen = new Set<string>();
  const keywords: string[] = [];
  for (const k of f.keywords) {
    const leaf = clean(k.split('|').pop());
    const key = leaf.toLowerCase();
    if (!/\p{L}/u.test(leaf) || leaf.length > KEYWORD_MAX_CHARS || seen.has(key) || PLACEHOLDERS.has(letters(leaf))) continue;
    seen.add(key);
    keywords.push(leaf);
    if (keywords.length === KEYWORDS_MAX) break;
  }
  return { caption: caption ? cut(caption, CAPTION_MAX_CHARS) : null, keywords };
}
