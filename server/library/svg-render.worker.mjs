// Child process of svg-render.ts (workerpool, workerType 'process'): rasterises one SVG at a time with
// sharp (librsvg). A render cannot be interrupted inside librsvg, so the parent kills this process when
// a render outlives its time limit; nothing here needs to clean up.
import os from 'node:os';
import sharp from 'sharp';
import workerpool from 'workerpool';

const nice = Number(process.env.ATELIER_SVG_RENDER_NICE ?? '0');
if (nice > 0) {
  try {
    os.setPriority(0, nice);
  } catch {
    // lowering one's own priority is allowed everywhere we run; ignore where it is not
  }
}
sharp.concurrency(1);

/**
 * @param {Uint8Array} svg the SVG document
 * @param {number} width canvas width of the document, px at 72 dpi
 * @param {number} target width to render at, px
 * @param {number} maxPixels pixel limit of the rendered raster
 * @returns {Promise<{data: Uint8Array, width: number, height: number}>} 8-bit RGBA
 */
async function render(svg, width, target, maxPixels) {
  const density = Math.min(100_000, Math.max(1, (72 * target) / width));
  const { data, info } = await sharp(Buffer.from(svg), { density, limitInputPixels: maxPixels, failOn: 'error' })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
}

workerpool.worker({ render });
