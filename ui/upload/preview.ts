/** Longest edge of the Dashboard previews, px. */
const PREVIEW_EDGE_PX = 240;

/**
 * A small JPEG preview of an image file as a `data:` URL (the MCP Apps default CSP allows `img-src data:`
 * but not `blob:`, so Uppy's own blob: thumbnails would be blocked). Formats the browser cannot decode
 * (HEIC in Chromium) and videos get no preview: null.
 */
export async function dataUrlPreview(blob: Blob, type: string | undefined): Promise<string | null> {
  if (!type?.startsWith('image/') || type === 'image/svg+xml' || blob.size > 40 * 1024 * 1024) return null;
  try {
    const bitmap = await createImageBitmap(blob);
    const scale = Math.min(1, PREVIEW_EDGE_PX / Math.max(bitmap.width, bitmap.height));
    const canvas = document.createElement('canvas');
    canvas.width = Math.max(1, Math.round(bitmap.width * scale));
    canvas.height = Math.max(1, Math.round(bitmap.height * scale));
    canvas.getContext('2d')?.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    bitmap.close();
    return canvas.toDataURL('image/jpeg', 0.8);
  } catch {
    return null;
  }
}
