import sharp from 'sharp';
import { blobShaOf, type TestClient, type TestServer } from './harness.ts';

/** Bytes behind one of our CDN URLs, read from the blob store. */
export async function cdnBytes(srv: TestServer, url: string): Promise<Buffer> {
  return srv.app.library.blobs.get(await blobShaOf(srv, url));
}

/** RGBA of one pixel (alpha added when absent). */
export async function pixel(bytes: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * 4;
  return [data[i]!, data[i + 1]!, data[i + 2]!, data[i + 3]!];
}

/** Whether two colours are within `tol` per RGB channel (alpha ignored). */
export const near = (a: number[], b: number[], tol = 24): boolean => a.slice(0, 3).every((v, i) => Math.abs(v - b[i]!) <= tol);

/** Import PNG bytes through svc_asset_import. @throws Error with the tool error */
export async function importPng(c: TestClient, png: Buffer, filename: string): Promise<{ asset_id: string; url: string }> {
  const r = await c.call('svc_asset_import', 'import', { data: png.toString('base64'), mime_type: 'image/png', filename });
  if (r.isError) throw new Error(JSON.stringify(r.error));
  return r.structured as { asset_id: string; url: string };
}
