import sharp from 'sharp';

/**
 * Encode image bytes (any format sharp reads) as the requested output format. JPEG has no alpha: it is
 * flattened onto white. Quality: high 92, medium 85, low 75 (JPEG/WebP).
 * @param format png | jpeg | webp
 * @param raw set when `bytes` are raw pixels of this geometry
 */
export async function encodeAs(
  bytes: Buffer,
  format: string,
  quality: 'low' | 'medium' | 'high',
  raw?: { width: number; height: number; channels: 1 | 2 | 3 | 4 },
): Promise<Buffer> {
  const q = quality === 'high' ? 92 : quality === 'medium' ? 85 : 75;
  const img = sharp(bytes, raw ? { raw, limitInputPixels: false } : { limitInputPixels: false });
  if (format === 'jpeg') return img.flatten({ background: '#ffffff' }).jpeg({ quality: q, mozjpeg: true }).toBuffer();
  if (format === 'webp') return img.webp({ quality: q, alphaQuality: 100 }).toBuffer();
  return img.png({ compressionLevel: quality === 'high' ? 9 : 6 }).toBuffer();
}
