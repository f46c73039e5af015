/**
 * Structural completeness of an ISO base media file (ISO/IEC 14496-12: HEIF/HEIC, AVIF, MP4, MOV): walk
 * the top-level boxes (`size` u32 big-endian + `type` fourcc; size 1 = 64-bit `largesize` follows,
 * size 0 = to the end of the file) and check that each fits in the bytes. A download or upload cut
 * short leaves its last box (usually `mdat`, the coded image data) declaring more bytes than remain;
 * decoders such as libheif then paint the missing tiles instead of failing.
 * @returns a description of the first problem, or null when every top-level box is complete
 */
export function isobmffTruncation(bytes: Uint8Array): string | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const fourcc = (at: number): string => String.fromCharCode(...bytes.subarray(at, at + 4)).replace(/[^\x20-\x7e]/g, '?');
  let off = 0;
  while (off < bytes.length) {
    const left = bytes.length - off;
    if (left < 8) return `the box header at byte ${off} is cut off (${left} bytes left)`;
    let size = view.getUint32(off);
    const type = fourcc(off + 4);
    let header = 8;
    if (size === 1) {
      if (left < 16) return `the 64-bit size of box '${type}' at byte ${off} is cut off`;
      size = Number(view.getBigUint64(off + 8));
      header = 16;
    } else if (size === 0) {
      size = left;
    }
    if (size < header) return `box '${type}' at byte ${off} has an invalid size (${size} bytes)`;
    if (size > left) return `box '${type}' at byte ${off} declares ${size} bytes but only ${left} remain`;
    off += size;
  }
  return null;
}
