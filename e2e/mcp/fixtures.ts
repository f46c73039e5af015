import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { demoFile, REPO_ROOT, type TestClient } from './harness.ts';

/**
 * The default HEIC of the tests: demo/images/formats/IMG_2682.heic downscaled to 640×480 (44 KB; how it was
 * made and its source: e2e/fixtures/heic/README.md). The 4032×3024 original is decoded by one test only
 * (image-pipeline.test.ts) and by the demo seed.
 */
export const SMALL_HEIC_PATH = path.join(REPO_ROOT, 'e2e', 'fixtures', 'heic', 'IMG_2682-640.heic');
export const smallHeic = (): Buffer => fs.readFileSync(SMALL_HEIC_PATH);
/** `smallHeic` with an XMP title, description and keywords and EXIF description, artist, copyright and orientation (e2e/fixtures/heic/README.md). */
export const describedHeic = (): Buffer => fs.readFileSync(path.join(REPO_ROOT, 'e2e', 'fixtures', 'heic', 'IMG_2682-640-described.heic'));

/**
 * A demo JPEG re-encoded at most `maxWidthPx` wide (JPEG quality 85; libjpeg's shrink-on-load keeps this
 * cheap), for tests about search and enrichment: the 5–6k px originals of demo/images/text cost only decode
 * and rendition time there. The image-pipeline, OCR, view and upload-chunking tests keep the originals.
 */
export async function smallDemoPhoto(rel: string, maxWidthPx = 1280): Promise<Buffer> {
  return sharp(demoFile(rel)).rotate().resize({ width: maxWidthPx, withoutEnlargement: true }).jpeg({ quality: 85 }).toBuffer();
}

/** Small real photos from demo/images used to seed search tests (fast to import). */
export const SEARCH_SEED = [
  { file: 'images/nature/prairie_falcon.jpg', tags: ['bird', 'raptor'], alt_text: 'A prairie falcon perched on a rock' },
  { file: 'images/nature/silver_fir.jpg', tags: ['tree', 'conifer'], alt_text: 'Silver fir branches' },
  { file: 'images/nature/el_torcal_rocks.jpg', tags: ['landscape'], alt_text: 'Limestone rock formations' },
  { file: 'images/nature/cyclamen_persicum.jpg', tags: ['flower'], alt_text: 'Pink cyclamen flowers' },
  { file: 'images/nature/wood_anemones.jpg', tags: ['flower', 'forest'], alt_text: 'White wood anemones' },
  { file: 'images/nature/notocactus_minimus.jpg', tags: ['cactus'], alt_text: 'A small cactus' },
  { file: 'images/nature/orychophragmus_violaceus.jpg', tags: ['flower'], alt_text: 'Violet flowers' },
  { file: 'images/nature/polemonium_reptans.jpg', tags: ['flower'], alt_text: 'Blue Jacob’s ladder flowers' },
  { file: 'images/nature/tanners_ridge.jpg', tags: ['landscape', 'mountain'], alt_text: 'A mountain ridge at dusk', purpose: 'hero_bg' },
  { file: 'images/metadata/portrait.jpg', tags: ['portrait'], alt_text: 'Portrait photo' },
  { file: 'images/metadata/thompson-springs.jpg', tags: ['landscape'], alt_text: 'Thompson Springs' },
  { file: 'images/formats/denali.webp', tags: ['mountain'], alt_text: 'Denali mountain', purpose: 'section_bg' },
];

/** Import the seed set through the public import action. @returns asset ids by file name */
export async function seedSearchLibrary(c: TestClient): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (const s of SEARCH_SEED) {
    const name = s.file.split('/').pop()!;
    const r = await c.call('svc_asset_import', 'import', {
      data: demoFile(s.file).toString('base64'),
      mime_type: name.endsWith('.webp') ? 'image/webp' : 'image/jpeg',
      filename: name,
      tags: s.tags,
      alt_text: s.alt_text,
      ...(s.purpose ? { purpose: s.purpose } : {}),
    });
    if (r.isError) throw new Error(`seed import failed: ${JSON.stringify(r.error)}`);
    ids.set(name, r.structured.asset_id as string);
  }
  return ids;
}

/** A tiny SVG document. */
export const SVG_LOGO =
  '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="120" height="40" viewBox="0 0 120 40"><rect width="120" height="40" fill="#1f3a5f"/><text x="10" y="26" fill="#fff">ACME</text></svg>';
