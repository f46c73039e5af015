import PQueue from 'p-queue';
import sharp from 'sharp';
import type { CatalogProductInput } from '../domain/catalog.ts';
import { fetchUrl, type FetchPolicy } from '../assets/fetch-url.ts';
import type { Logger } from '../log.ts';

/** How `measureProductImages` fetches: the URL-import guard (no private targets unless allowed) with a small body cap. */
export interface ImageMeasurePolicy {
  fetch: FetchPolicy;
  /** images fetched at once */
  concurrency: number;
}

/** What measuring did: images that had no size, how many got one, and how many could not be read (left null). */
export interface ImageMeasureReport {
  missing: number;
  measured: number;
  failed: number;
}

/**
 * Fill in `width`/`height` (px) of product images whose source gave none (Shopify's product CSV has no
 * image sizes; the Admin GraphQL and REST shapes do): each such image URL is fetched through the
 * URL-import guard (`fetchUrl`: http(s) only, private targets refused, body and time capped) and its
 * header read by sharp. An image that cannot be fetched or decoded keeps `null` and is counted in
 * `failed`: measuring never fails an import. Mutates `products` in place; a URL shared by several
 * images is fetched once.
 */
export async function measureProductImages(
  products: CatalogProductInput[],
  policy: ImageMeasurePolicy,
  log: Logger,
): Promise<ImageMeasureReport> {
  const missing = products.flatMap((p) => p.images).filter((i) => i.width === null || i.height === null);
  const byUrl = new Map<string, Promise<{ width: number; height: number } | null>>();
  const queue = new PQueue({ concurrency: policy.concurrency });
  const sizeOf = (url: string): Promise<{ width: number; height: number } | null> => {
    let p = byUrl.get(url);
    if (!p) {
      p = queue.add(async () => {
        try {
          const { bytes } = await fetchUrl(url, policy.fetch);
          const m = await sharp(bytes, { limitInputPixels: false }).metadata();
          return m.width && m.height ? { width: m.autoOrient.width, height: m.autoOrient.height } : null;
        } catch (e) {
          log.debug({ url, err: (e as Error).message }, 'product image not measured');
          return null;
        }
      });
      byUrl.set(url, p);
    }
    return p;
  };
  let measured = 0;
  await Promise.all(
    missing.map(async (img) => {
      const size = await sizeOf(img.url);
      if (!size) return;
      img.width = size.width;
      img.height = size.height;
      measured++;
    }),
  );
  return { missing: missing.length, measured, failed: missing.length - measured };
}
