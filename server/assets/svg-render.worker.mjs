// Child process of svg-render.ts (workerpool, workerType 'process'): sanitises (DOMPurify on jsdom) and
// rasterises (sharp, librsvg) one SVG at a time. Neither can be interrupted from inside, so the parent
// kills this process when a task outlives its time limit; nothing here needs to clean up. jsdom stays out
// of the request process: a large document's DOM costs memory and CPU here, not there.
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

/** @type {import('dompurify').DOMPurify | null} */
let purifier = null;

/**
 * DOMPurify on a jsdom window, made once per child on its first sanitise (jsdom takes ~1 s to load: a
 * child that only renders never pays it), with `<use>` allowed for references inside the document only.
 */
async function purify() {
  if (purifier) return purifier;
  const [{ default: createDOMPurify }, { JSDOM }] = await Promise.all([import('dompurify'), import('jsdom')]);
  purifier = createDOMPurify(new JSDOM('').window);
  // <use> is off in DOMPurify's SVG profile because it can pull in another document (an external or data:
  // SVG with its own scripts); icon sprites need it, so it stays with a same-document reference (#id) only.
  purifier.addHook('uponSanitizeAttribute', (node, data) => {
    if (node.nodeName.toLowerCase() === 'use' && (data.attrName === 'href' || data.attrName === 'xlink:href'))
      data.keepAttr = data.attrValue.trim().startsWith('#');
  });
  return purifier;
}

/**
 * Remove everything that can run script from an SVG document: <script>, event-handler attributes
 * (onload, onclick …), javascript: and other unsafe URLs, <foreignObject> with its HTML, animation of
 * attributes into such values, and elements outside SVG. DOMPurify's SVG profile
 * (https://github.com/cure53/DOMPurify#can-i-configure-dompurify, USE_PROFILES {svg, svgFilters}),
 * parsed as HTML (its well-trodden mode: it accepts documents without an xmlns and drops the XML prolog).
 * The HTML serialiser's output is made XML again: the SVG namespace on the root, &nbsp; as a numeric
 * reference.
 * @param {Uint8Array} svg the SVG document (UTF-8)
 * @returns {Promise<Uint8Array>} the sanitised document (UTF-8), or empty when no <svg> root is left
 */
async function sanitize(svg) {
  const clean = (await purify()).sanitize(Buffer.from(svg).toString('utf8'), {
    USE_PROFILES: { svg: true, svgFilters: true },
    ADD_TAGS: ['use'],
  });
  let out = clean.trim().replaceAll('&nbsp;', '&#160;');
  if (!/^<svg[\s>]/i.test(out)) return new Uint8Array(0);
  if (!/^<svg[^>]*\sxmlns=/i.test(out)) out = out.replace(/^<svg/i, '<svg xmlns="http://www.w3.org/2000/svg"');
  return new Uint8Array(Buffer.from(out, 'utf8'));
}

workerpool.worker({ render, sanitize });
