import { describe, expect, it } from 'vitest';
import { cleanOcr, embeddingText, fallbackEmbeddingText, machineAltText, nameWords, orientationOf } from './media/alt-text.ts';
import { colourName, dominantColours, isMonochrome, srgbToLab, visualDescriptor, VISUAL_DIMENSIONS } from './media/colour.ts';
import { cosine, sifWeight, tokenize } from './search/sif.ts';

describe('sif', () => {
  it('tokenises file names, camelCase and diacritics', () => {
    expect(tokenize('RedFox_2.JPG café-Crème')).toEqual(['red', 'fox', '2', 'jpg', 'cafe', 'creme']);
  });
  it('weights frequent words down (Arora et al. 2017)', () => {
    expect(sifWeight(0, 341_479)).toBeLessThan(0.05);
    expect(sifWeight(5000, 341_479)).toBeGreaterThan(0.95);
  });
});

describe('colour', () => {
  it('converts sRGB to CIELAB (D65)', () => {
    const [L, a, b] = srgbToLab(255, 0, 0);
    expect(L).toBeCloseTo(53.24, 1);
    expect(a).toBeCloseTo(80.09, 0);
    expect(b).toBeCloseTo(67.2, 0);
    expect(srgbToLab(255, 255, 255)[0]).toBeCloseTo(100, 1);
  });
  it.each([
    [[220, 20, 30], 'red'],
    [[30, 60, 200], 'blue'],
    [[250, 250, 250], 'white'],
    [[10, 10, 10], 'black'],
    [[128, 128, 128], 'grey'],
    [[40, 140, 50], 'green'],
  ] as const)('names %j %s', (rgb, name) => {
    expect(colourName(srgbToLab(rgb[0], rgb[1], rgb[2]))).toBe(name);
  });
  it('finds dominant colours by share', () => {
    const px = new Uint8Array(100 * 3);
    for (let i = 0; i < 100; i++) px.set(i < 70 ? [30, 60, 200] : [220, 20, 30], i * 3);
    expect(dominantColours(px, 3).map((c) => [c.name, c.share])).toEqual([
      ['blue', 0.7],
      ['red', 0.3],
    ]);
  });
  it('calls a raster monochrome when at most 1% of its opaque pixels show a hue', () => {
    const raster = (hued: number, channels = 3, transparentHued = 0) => {
      const px = new Uint8Array(200 * channels);
      for (let i = 0; i < 200; i++) {
        const v = (i * 37) % 256;
        const rgb = i < hued + transparentHued ? [200, 60, 40] : [v, v, v];
        px.set(channels === 4 ? [...rgb, i >= hued && i < hued + transparentHued ? 0 : 255] : rgb, i * channels);
      }
      return px;
    };
    expect(isMonochrome(raster(0), 3)).toBe(true);
    expect(isMonochrome(raster(2), 3)).toBe(true);
    expect(isMonochrome(raster(3), 3)).toBe(false);
    // transparent pixels do not count
    expect(isMonochrome(raster(0, 4, 50), 4)).toBe(true);
    // a sepia tint is a hue
    const sepia = new Uint8Array(100 * 3);
    for (let i = 0; i < 100; i++) sepia.set([112 + i, 66 + i, 20 + i], i * 3);
    expect(isMonochrome(sepia, 3)).toBe(false);
    expect(isMonochrome(new Uint8Array(0), 3)).toBe(false);
  });
  it('gives near-identical descriptors to a slightly altered image and distant ones to a different image', () => {
    const size = 16;
    const img = (f: (x: number, y: number) => [number, number, number]) => {
      const px = new Uint8Array(size * size * 3);
      for (let y = 0; y < size; y++) for (let x = 0; x < size; x++) px.set(f(x, y), (y * size + x) * 3);
      return px;
    };
    const grey = (f: (x: number) => number) => Uint8Array.from({ length: 72 }, (_, i) => f(i % 9));
    const a = visualDescriptor(
      img((x, y) => [x * 15, y * 15, 100]),
      size,
      grey((x) => x * 20),
    );
    const a2 = visualDescriptor(
      img((x, y) => [x * 15 + 3, y * 15, 98]),
      size,
      grey((x) => x * 20 + 2),
    );
    const b = visualDescriptor(
      img((x, y) => [250 - y * 10, 200, x * 10]),
      size,
      grey((x) => 200 - x * 20),
    );
    expect(a.length).toBe(VISUAL_DIMENSIONS);
    expect(cosine(a, a2)).toBeGreaterThan(0.97);
    expect(cosine(a, b)).toBeLessThan(0.5);
  });
});

describe('alt text and embedding text', () => {
  it('keeps readable file-name words only', () => {
    expect(nameWords('prairie_falcon.jpg')).toBe('prairie falcon');
    expect(nameWords('IMG_2682.png')).toBe('');
    expect(nameWords('DSC0001-RedBarn.jpeg')).toBe('red barn');
    expect(nameWords('PXL_20240501_123456789.jpg')).toBe('');
    expect(nameWords('sunsetBeach_copy(2).webp')).toBe('sunset beach');
    expect(nameWords('HTTPServer-diagram.png')).toBe('http server diagram');
    expect(nameWords('3f2a9c1b7d4e8f60-blue-vase.jpg')).toBe('blue vase');
    expect(nameWords('Screenshot 2024-03-01 at 10.22.31.png')).toBe('');
    expect(nameWords('WhatsApp Image 2024-02-11 at 09.15.02 (1).jpeg')).toBe('');
    expect(nameWords('book-beside-flowers.jpg')).toBe('book beside flowers');
  });
  it('keeps a confident page whole and only confident words of a photo', () => {
    expect(cleanOcr('Hello  World\n', 90, [])).toBe('Hello World');
    expect(
      cleanOcr('~~ ab WARRIOR', 30, [
        { text: '~~', confidence: 90 },
        { text: 'WARRIOR', confidence: 80 },
        { text: 'ab', confidence: 20 },
      ]),
    ).toBe('WARRIOR');
    expect(cleanOcr('', 10, [])).toBeNull();
  });
  it('composes machine alt text from subject and text only (colours and orientation are facts, not words)', () => {
    expect(machineAltText({ name: 'silver_fir.jpg', prompt: null, ocrText: null })).toBe('Silver fir');
    expect(machineAltText({ name: 'IMG_1.png', prompt: null, ocrText: 'SALE 50%' })).toBe('Image with the text "SALE 50%"');
    expect(machineAltText({ name: 'shop_sign.png', prompt: null, ocrText: 'OPEN' })).toBe('Shop sign, with the text "OPEN"');
    expect(machineAltText({ name: 'IMG_2.png', prompt: null, ocrText: null })).toBe('Image');
    // the kinds a compound name word names follow the name, never a prompt
    expect(machineAltText({ name: 'notocactus_minimus.jpg', prompt: null, ocrText: null, heads: ['cactus'] })).toBe(
      'Notocactus minimus (cactus)',
    );
    expect(machineAltText({ name: 'x.png', prompt: 'a red door', ocrText: null, heads: ['door'] })).toBe('A red door');
    expect(machineAltText({ name: 'unsplash-redflower.jpg', prompt: null, ocrText: null })).toBe('Redflower');
    expect(orientationOf(800, 600)).toBe('landscape');
  });
  it('embeds an asset without any words from its kind and colours (never its orientation)', () => {
    expect(fallbackEmbeddingText({ kind: 'image', colours: ['green', 'blue'] })).toBe('photo. green blue');
  });
  it('embeds user metadata, prompt and OCR text', () => {
    expect(
      embeddingText({
        name: 'red_fox.jpg',
        userAltText: 'alt',
        tags: ['t1'],
        purpose: 'hero_bg',
        ocrText: 'ocr',
        autoTags: ['text'],
        prompt: 'p',
      }),
    ).toBe('red fox. alt. t1. hero bg. p. ocr. text');
  });
});
