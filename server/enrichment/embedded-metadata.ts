/**
 * Reads the descriptive XMP, IPTC IIM, EXIF and PNG text fields of an image file with ExifReader
 * (https://github.com/mattiasw/ExifReader: JPEG, PNG, WebP, AVIF, HEIC, TIFF, GIF; XMP through
 * @xmldom/xmldom), for domain/media/embedded-metadata.ts to turn into a caption and keywords.
 */
import ExifReader from 'exifreader';
import { describeEmbedded, type EmbeddedDescription, type EmbeddedFields } from '../domain/media/embedded-metadata.ts';

/** Only the fields read here are parsed (ExifReader `includeTags`): no GPS, maker notes or thumbnails. */
const INCLUDE_FILE = {
  exif: ['ImageDescription', 'XPTitle', 'XPSubject', 'XPKeywords', 'Make', 'Model'],
  iptc: ['Object Name', 'Headline', 'Caption/Abstract', 'Keywords'],
  png: ['Title', 'Description'],
};
const INCLUDE_XMP = { xmp: ['title', 'description', 'subject', 'Headline'] };

/**
 * Largest XMP packet parsed, bytes. A JPEG's packet is at most 65,502 bytes; far larger ones (a WebP or PNG
 * chunk, a phone's depth map) hold no caption worth the time: XML parsing runs on the event loop, and a
 * 19 MB packet took 12 s and 1.8 GB.
 */
export const XMP_MAX_BYTES = 256 * 1024;

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
 * The descriptive fields of a file, in the precedence `EmbeddedFields` documents; all null and no keywords
 * when it has none or its metadata cannot be parsed (a broken metadata block never fails enrichment: the
 * pixels are what the rest of the analysis reads). ExifReader reads the EXIF, IPTC and PNG text of the file
 * itself; the XMP packet is the one libvips found (sharp's `metadata().xmp`), parsed only up to
 * XMP_MAX_BYTES, so no packet ExifReader would gather on its own (a JPEG's extended XMP) is parsed.
 * @param bytes an image file as stored (any format ExifReader knows; others give no fields)
 * @param xmp the file's XMP packet (UTF-8 XML), when it has one
 */
export function readEmbeddedFields(bytes: Buffer, xmp: Buffer | undefined): EmbeddedFields {
  const load = (data: Buffer, includeTags: Record<string, string[]>): ExifReader.ExpandedTags => {
    try {
      return ExifReader.load(data, { expanded: true, includeTags });
    } catch {
      return {};
    }
  };
  const tags = load(bytes, INCLUDE_FILE);
  const x = (xmp && xmp.length <= XMP_MAX_BYTES ? load(xmp, INCLUDE_XMP).xmp : undefined) as Group;
  const iptc = tags.iptc as Group;
  const exif = tags.exif as Group;
  const png = tags.pngText as Group;
  return {
    title: text(x?.title) ?? text(iptc?.['Object Name']) ?? text(exif?.XPTitle) ?? text(png?.Title),
    headline: text(x?.Headline) ?? text(iptc?.Headline),
    description:
      text(x?.description) ??
      text(iptc?.['Caption/Abstract']) ??
      text(exif?.ImageDescription) ??
      text(png?.Description) ??
      text(exif?.XPSubject),
    keywords: [...items(x?.subject), ...items(iptc?.Keywords), ...items(exif?.XPKeywords)],
    make: text(exif?.Make),
    model: text(exif?.Model),
  };
}

/**
 * The caption and keywords a file's own metadata gives (domain/media/embedded-metadata.ts `describeEmbedded`).
 * @param xmp the XMP packet libvips read from the file (sharp `metadata().xmp`)
 */
export function embeddedDescription(bytes: Buffer, xmp: Buffer | undefined): EmbeddedDescription {
  return describeEmbedded(readEmbeddedFields(bytes, xmp));
}

/**
 * EXIF IFD0 text tags a converted copy of a file keeps: its description and its rights. Not orientation
 * (the converted pixels are upright already), camera data, dates or GPS.
 */
const CARRIED_EXIF = ['ImageDescription', 'Artist', 'Copyright'] as const;

/** What a format conversion (HEIC → PNG) carries over from the original, in sharp's `withExif`/`withXmp` shapes. */
export interface CarriedMetadata {
  /** `{ IFD0: { ImageDescription?, Artist?, Copyright? } }`, or null when the original has none of them */
  exif: { IFD0: Record<string, string> } | null;
  /** the original's XMP packet (UTF-8 XML), or null when it has none or it is over XMP_MAX_BYTES */
  xmp: string | null;
}

/**
 * The descriptive metadata a converted copy should keep, so that the photographer's caption, keywords,
 * author and licence survive the conversion (enrichment reads them from the stored copy). Unparseable
 * metadata gives nothing, never an error.
 * @param bytes the original file (HEIC/HEIF here; any format ExifReader knows)
 * @param xmp its XMP packet as libvips read it (sharp `metadata().xmp`)
 */
export function carriedMetadata(bytes: Buffer, xmp: Buffer | undefined): CarriedMetadata {
  let exif: ExifReader.ExpandedTags['exif'];
  try {
    exif = ExifReader.load(bytes, { expanded: true, includeTags: { exif: [...CARRIED_EXIF] } }).exif;
  } catch {
    exif = undefined;
  }
  const ifd0: Record<string, string> = {};
  for (const name of CARRIED_EXIF) {
    const value = text((exif as Group)?.[name]);
    if (value) ifd0[name] = value;
  }
  return {
    exif: Object.keys(ifd0).length > 0 ? { IFD0: ifd0 } : null,
    xmp: xmp && xmp.length > 0 && xmp.length <= XMP_MAX_BYTES ? xmp.toString('utf8') : null,
  };
}
