/**
 * Local provider composite time at 1K and 2K (16:9) next to a bare sharp pipeline doing the same
 * operations: background cover-crop to the canvas, subject fitted into its placement box, alpha
 * composite, JPEG encode (mozjpeg, q85). Inputs are real demo photos: a product-like cut-out (a demo
 * photo masked to a disc, PNG with alpha) on `demo/images/nature/tanners_ridge.jpg`.
 * The ratio (provider / bare) is the overhead of the provider's pipeline (placement planning, PNG
 * intermediates, notes) over the minimum libvips work.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { dimensionsFor } from '../server/domain/media/image-size.ts';
import { placementBox, planPlacements } from '../server/domain/generation/placement.ts';
import { createLocalProvider } from '../server/providers/local.ts';
import type { ImageRequest, InputImage } from '../server/providers/types.ts';
import { percentile, table, timeIt } from './stats.ts';

const DEMO = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'demo', 'images');
const RUNS = 20;

async function input(bytes: Buffer, mime: string): Promise<InputImage> {
  const m = await sharp(bytes).metadata();
  return { bytes, mime, width: m.width, height: m.height };
}

export default async function compositeBench(): Promise<void> {
  sharp.concurrency(1); // one libvips thread: comparable on a shared 2-core machine
  const bgBytes = fs.readFileSync(path.join(DEMO, 'nature', 'tanners_ridge.jpg'));
  const photo = fs.readFileSync(path.join(DEMO, 'nature', 'cyclamen_persicum.jpg'));
  const disc = Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" width="800" height="800"><circle cx="400" cy="400" r="390" fill="#fff"/></svg>',
  );
  const productBytes = await sharp(photo)
    .resize(800, 800, { fit: 'cover' })
    .composite([{ input: disc, blend: 'dest-in' }])
    .png()
    .toBuffer();
  const product = await input(productBytes, 'image/png');
  const background = await input(bgBytes, 'image/jpeg');
  const prompt = 'product on the left at 45%';
  const provider = createLocalProvider();
  const signal = new AbortController().signal;
  const rows: (string | number)[][] = [];
  for (const size of ['1K', '2K']) {
    const { width: w, height: h } = dimensionsFor('16:9', size, 8);
    const req: ImageRequest = {
      operation: 'edit',
      model: 'atelier-compositor-1',
      prompt,
      style: 'photography',
      purpose: 'product_composite',
      quality: 'medium',
      aspectRatio: '16:9',
      imageSize: size,
      outputFormat: 'jpeg',
      transparent: false,
      brandColors: [],
      brandTone: undefined,
      references: [product, background],
      mask: null,
    };
    const box = placementBox(planPlacements(prompt, 1)[0]!, w, h, product.width, product.height);
    const bareOnce = async (): Promise<Buffer> => {
      const subject = await sharp(product.bytes).resize(box.width, box.height, { fit: 'inside' }).toBuffer();
      return sharp(bgBytes)
        .rotate()
        .resize(w, h, { fit: 'cover', position: 'attention' })
        .composite([{ input: subject, left: box.left, top: box.top }])
        .jpeg({ quality: 85, mozjpeg: true })
        .toBuffer();
    };
    // Interleaved, so load from other processes hits both pipelines alike.
    const viaProvider: number[] = [];
    const bare: number[] = [];
    for (let i = 0; i < RUNS + 2; i++) {
      const a = await timeIt(() => provider.generate(req, { signal }), 1, 0);
      const b = await timeIt(bareOnce, 1, 0);
      if (i >= 2) {
        viaProvider.push(a[0]!);
        bare.push(b[0]!);
      }
    }
    const p50p = percentile(viaProvider, 50);
    const p50b = percentile(bare, 50);
    rows.push([
      `${size} (${w}×${h})`,
      p50p.toFixed(1),
      percentile(viaProvider, 95).toFixed(1),
      p50b.toFixed(1),
      percentile(bare, 95).toFixed(1),
      (p50p / p50b).toFixed(2),
    ]);
  }
  table(['canvas', 'local provider p50 ms', 'p95 ms', 'bare sharp p50 ms', 'p95 ms', 'ratio p50'], rows);
  process.stdout.write(
    `(${RUNS} interleaved runs each after 2 warm-up runs; load average ${os.loadavg()[0]!.toFixed(1)}; background ${background.width}×${background.height} JPEG, subject ${product.width}×${product.height} PNG with alpha; sharp.concurrency(1))\n`,
  );
}
