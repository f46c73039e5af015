import sharp from 'sharp';
import type { TestClient, TestServer } from './harness.ts';

/** Bytes behind one of our CDN URLs, read from the blob store. */
export async function cdnBytes(srv: TestServer, url: string): Promise<Buffer> {
  const p = srv.app.library.urls.parse(url);
  if (!p) throw new Error(`not a CDN URL: ${url}`);
  const sha = await srv.app.library.assets.resolveBlob(p.sha256Prefix);
  if (!sha) throw new Error(`no blob behind ${url}`);
  return srv.app.library.blobs.get(sha);
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
