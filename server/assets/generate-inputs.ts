import sharp from 'sharp';
import type { Scope } from '../domain/scope.ts';
import { ServiceError } from '../errors.ts';
import type { InputImage } from '../providers/types.ts';
import { imageWork, type LibraryDeps } from './deps.ts';
import { fetchUrl } from './fetch-url.ts';
import { IMAGE_PRIORITY } from './image-pool.ts';
import { normaliseOriginal } from './media.ts';

/**
 * Inputs of `asset_generate`: reference images and the mask, resolved to bytes. Our own CDN URLs
 * (`library.urls.parse`) resolve from the blob store without a network fetch, and only when the blob
 * belongs to an asset of the caller's workspace (a foreign URL behaves like a missing one); other URLs
 * go through the SSRF-safe fetcher used by import.
 */

async function bytesOf(deps: LibraryDeps, scope: Scope, url: string, field: string): Promise<Buffer> {
  const own = deps.urls.parse(url);
  if (own) {
    const sha = (await deps.assets.blobByKey(own.key))?.sha256;
    if (!sha || !(await deps.assets.ownsBlob(scope, sha)) || !(await deps.blobs.has(sha))) {
      throw new ServiceError('not_found', field, `${url} is not an asset of workspace ${scope.workspaceId}`);
    }
    return deps.blobs.get(sha);
  }
  try {
    const body = await fetchUrl(url, {
      maxBytes: deps.policy.maxImportBytes,
      timeoutMs: deps.policy.fetchTimeoutMs,
      maxRedirects: 5,
      allowPrivate: deps.policy.allowPrivateUrls,
    });
    return body.bytes;
  } catch (e) {
    // fetchUrl names args.url; re-point its rule at this input's own path.
    if (e instanceof ServiceError)
      throw new ServiceError(e.code, field, e.message, { cause: e, ...(e.details ? { details: e.details } : {}) });
    throw e;
  }
}

/**
 * Resolve one image URL to an upright raster: decoded and validated like an import (HEIC → PNG,
 * pixel limit), SVG rasterised to PNG, EXIF orientation applied to the reported size.
 * @throws ServiceError not_found | invalid_argument | conversion_failed naming `field`
 */
export async function resolveImage(deps: LibraryDeps, scope: Scope, url: string, field: string): Promise<InputImage> {
  const raw = await bytesOf(deps, scope, url, field);
  const work = imageWork(deps.images, IMAGE_PRIORITY.import);
  const { original: orig, svgPixels } = await normaliseOriginal(
    raw,
    field,
    { maxInputPixels: deps.policy.maxInputPixels, allowVideo: false },
    work,
  );
  if (svgPixels) {
    const px = svgPixels;
    const png = await work.run(() =>
      sharp(px.data, { raw: { width: px.width, height: px.height, channels: 4 } })
        .png()
        .toBuffer({ resolveWithObject: true }),
    );
    return { bytes: png.data, mime: 'image/png', width: png.info.width, height: png.info.height };
  }
  return { bytes: orig.bytes, mime: orig.mime, width: orig.width ?? 0, height: orig.height ?? 0 };
}

/**
 * Normalise a caller's mask to the providers' matte: a single-channel PNG of `width`×`height` px
 * (the first reference's upright size) where 255 marks pixels to edit. Spec §4.3: "transparent or
 * white regions mark the edit area" — a mask with any non-opaque pixel is read by its alpha
 * (transparent = edit), an opaque mask by its luminance (white = edit). Soft edges are kept.
 * @throws ServiceError invalid_argument (args.mask_url) when the mask marks no pixel
 */
export async function normaliseMask(
  mask: InputImage,
  width: number,
  height: number,
): Promise<{ png: Buffer; width: number; height: number; source: 'alpha' | 'luminance' }> {
  const { data, info } = await sharp(mask.bytes).rotate().ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  let byAlpha = false;
  for (let i = 3; i < data.length; i += 4)
    if (data[i]! < 255) {
      byAlpha = true;
      break;
    }
  const matte = Buffer.allocUnsafe(info.width * info.height);
  for (let p = 0, i = 0; p < matte.length; p++, i += 4) {
    // Rec. 709 luma for opaque masks (white = edit); inverted alpha otherwise (transparent = edit).
    matte[p] = byAlpha ? 255 - data[i + 3]! : Math.round(0.2126 * data[i]! + 0.7152 * data[i + 1]! + 0.0722 * data[i + 2]!);
  }
  const png = await sharp(matte, { raw: { width: info.width, height: info.height, channels: 1 } })
    .resize(width, height, { fit: 'fill' })
    .png()
    .toBuffer();
  const m = await sharp(png).stats();
  if ((m.channels[0]?.max ?? 0) < 128) {
    throw new ServiceError(
      'invalid_argument',
      'args.mask_url',
      `marks no pixels to edit: use transparent or white pixels for the edit area (read by ${byAlpha ? 'alpha' : 'luminance'})`,
    );
  }
  return { png, width, height, source: byAlpha ? 'alpha' : 'luminance' };
}
