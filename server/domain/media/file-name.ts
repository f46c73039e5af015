import { cleanFileName } from '../../../shared/schemas/common.ts';

/**
 * Safe stored file names (issue 34): hosts and panels offer an asset's `name` for downloads, so a name
 * must never carry a path, control or bidi characters, or an extension that lies about the bytes.
 */

/** What `safeFileName` had to change in a supplied name (reported as `name_changed` on import). */
export type NameChange = 'decoded' | 'path' | 'characters' | 'length' | 'extension';

/** Longest stored name in UTF-8 bytes: NAME_MAX of ext4, APFS and NTFS (255) is what a download lands in. */
export const MAX_NAME_BYTES = 255;

/** Extensions that name each sniffed format (the first is the one a name gets when it has none of them). */
const EXTENSIONS: Record<string, readonly string[]> = {
  jpeg: ['jpg', 'jpeg', 'jpe', 'jfif'],
  png: ['png'],
  webp: ['webp'],
  gif: ['gif'],
  avif: ['avif'],
  tiff: ['tiff', 'tif'],
  svg: ['svg'],
  heic: ['heic'],
  heif: ['heif', 'heic'],
  mp4: ['mp4', 'm4v'],
  webm: ['webm'],
  mov: ['mov', 'qt'],
};

/** Extensions of media formats: a name ending in one of them that is not the real format's gets it replaced. */
const MEDIA_EXTENSIONS = new Set([...Object.values(EXTENSIONS).flat(), 'bmp', 'ico', 'jxl', 'mkv', 'avi']);

/** Characters Windows refuses in a file name (besides the separators and controls removed before). */
const RESERVED = /[<>:"|?*]/g;

/** Extension for a sniffed format (`jpeg` → `jpg`). */
export function extensionFor(format: string): string {
  return EXTENSIONS[format]?.[0] ?? format;
}

/** Decode `%XX` escapes once; a malformed sequence stays as written (never throws). */
function percentDecodeOnce(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    // Decode the well-formed runs only, so one stray `%` does not keep `%2f` as a separator in disguise.
    return s.replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        return run;
      }
    });
  }
}

/** Cut a string to at most `maxBytes` UTF-8 bytes at a code point boundary. */
function truncateUtf8(s: string, maxBytes: number): string {
  let bytes = 0;
  let out = '';
  for (const ch of s) {
    bytes += Buffer.byteLength(ch);
    if (bytes > maxBytes) break;
    out += ch;
  }
  return out;
}

/**
 * A supplied file name made safe to store and offer for download. In order: `%XX` escapes decoded
 * once (`%2e%2e%2f` is `../`; `%252e` stays `%2e`), NFC with control and bidi characters removed
 * (`cleanFileName`), the last segment after `/` or `\` (the basename; `.` and `..` are no segment),
 * Windows-reserved characters as `_`, leading dots and trailing dots and spaces dropped, the extension
 * of the sniffed `format` (a media extension of another format is replaced, a missing one added),
 * at most 255 UTF-8 bytes (the stem is cut, the extension kept).
 * @param format the sniffed format of the stored bytes (`jpeg`, `png`, …)
 * @returns the name, `''` when nothing usable is left (the caller derives one), and what changed
 */
export function safeFileName(supplied: string, format: string): { name: string; changed: NameChange[] } {
  const changed = new Set<NameChange>();
  const decoded = percentDecodeOnce(supplied);
  if (decoded !== supplied) changed.add('decoded');
  const cleaned = cleanFileName(decoded);
  if (cleaned !== decoded.trim()) changed.add('characters');
  const segments = cleaned.split(/[/\\]/).filter((s) => s.trim() !== '' && s !== '.' && s !== '..');
  let base = segments.at(-1) ?? '';
  if (base !== cleaned) changed.add('path');
  const tidy = base
    .replace(RESERVED, '_')
    .replace(/^[\s.]+/, '')
    .replace(/[\s.]+$/, '');
  if (tidy !== base) changed.add('characters');
  base = tidy;
  if (!/[\p{L}\p{N}]/u.test(base)) return { name: '', changed: [...changed] };

  const known = EXTENSIONS[format] ?? [format];
  const dot = base.lastIndexOf('.');
  const ext = dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
  let stem = base;
  let suffix = known[0]!;
  if (known.includes(ext)) {
    stem = base.slice(0, dot);
    suffix = base.slice(dot + 1); // as written (`.JPG` stays)
  } else {
    changed.add('extension');
    if (MEDIA_EXTENSIONS.has(ext)) stem = base.slice(0, dot);
  }
  const room = MAX_NAME_BYTES - Buffer.byteLength(`.${suffix}`);
  let cut = truncateUtf8(stem, room);
  if (cut !== stem) {
    changed.add('length');
    cut = cut.replace(/[\s.]+$/, '');
  }
  return { name: `${cut}.${suffix}`, changed: [...changed] };
}
