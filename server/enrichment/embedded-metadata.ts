/**
 * Reads the descriptive XMP, IPTC IIM, EXIF and PNG text fields of an image file with ExifReader
 * (https://github.com/mattiasw/ExifReader: JPEG, PNG, WebP, AVIF, HEIC, TIFF, GIF; XMP through
 * @xmldom/xmldom), for domain/media/embedded-metadata.ts to turn into a caption and keywords.
 */
import ExifReader from 'exifreader';
import { describeEmbedded, type EmbeddedDescription, type EmbeddedFields } from '../domain/media/embedded-metadata.ts';

/** Only the fields read here are parsed (ExifReader `includeTags`): no GPS, maker notes or thumbnails. */
const INCLUDE = {
  exif: ['ImageDescription', 'XPTitle', 'XPSubject', 'XPKeywords', 'Make', 'Model'],
  iptc: ['Object Name', 'Headline', 'Caption/Abstract', 'Keywords'],
  xmp: ['title', 'description', 'subject', 'Headline'],
};

/** ExifReader's tag: `description` is its text; XMP lists and IPTC repeats also give `value` as items. */
interface Tag {
  value?: unknown;
  description?: unknown;
}
type Group = Record<string, Tag | Tag[] | undefined> | undefined;

const text = (t: Tag | Tag[] | undefined): string | null => {
  const one = Array.isArray(t) ? t[0] : t;
  return typeof one?.description === 'string' && one.description.trim() ? one.description : null;
};

/** The items of a list tag: an XMP bag (`value` is a list of tags), repeated IPTC tags, or `;`-separated text (XPKeywords). */
function items(t: Tag | Tag[] | undefined): string[] {
  if (!t) return [];
  if (Array.isArray(t)) return t.flatMap(items);
  if (Array.isArray(t.value) && t.value.every((v) => typeof v === 'object' && v !== null))
    return (t.value as Tag[]).map((v) => text(v)).filter((s): s is string => s !== null);
  return (text(t) ?? '').split(';').filter((s) => s.trim());
}

/**
 * The descriptive fields of `bytes`, in the precedence `EmbeddedFields` documents; all null and no
 * keywords when the file has none or its metadata cannot be parsed (a broken metadata block never fails
 * enrichment: the pixels are what the rest of the analysis reads).
 * @param bytes an image file as stored (any format ExifReader knows; others give no fields)
 */
export function readEmbeddedFields(bytes: Buffer): EmbeddedFields {
  let tags: ExifReader.ExpandedTags;
  try {
    tags = ExifReader.load(bytes, { expanded: true, includeTags: INCLUDE });
  } catch {
    return { title: null, headline: null, description: null, keywords: [], make: null, model: null };
  }
  const xmp = tags.xmp as Group;
  const iptc = tags.iptc as Group;
  const exif = tags.exif as Group;
  const png = tags.pngText as Group;
  return {
    title: text(xmp?.title) ?? text(iptc?.['Object Name']) ?? text(exif?.XPTitle) ?? text(png?.Title),
    headline: text(xmp?.Headline) ?? text(iptc?.Headline),
    description:
      text(xmp?.description) ??
      text(iptc?.['Caption/Abstract']) ??
      text(exif?.ImageDescription) ??
      text(png?.Description) ??
      text(exif?.XPSubject),
    keywords: [...items(xmp?.subject), ...items(iptc?.Keywords), ...items(exif?.XPKeywords)],
    make: text(exif?.Make),
    model: text(exif?.Model),
  };
}

/** The caption and keywords a file's own metadata gives (domain/media/embedded-metadata.ts `describeEmbedded`). */
export function embeddedDescription(bytes: Buffer): EmbeddedDescription {
  return describeEmbedded(readEmbeddedFields(bytes));
}
