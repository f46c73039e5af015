import { describe, expect, it } from 'vitest';
import { CAPTION_MAX_CHARS, describeEmbedded, isDescriptive, KEYWORDS_MAX, type EmbeddedFields } from './embedded-metadata.ts';

const NONE: EmbeddedFields = { title: null, headline: null, description: null, keywords: [], make: null, model: null };
const camera = { make: null, model: null };

describe('isDescriptive', () => {
  it("refuses cameras' and tools' placeholders", () => {
    for (const t of [
      'OLYMPUS DIGITAL CAMERA',
      'SONY DSC',
      'Image-Description',
      'EXIF_JPEG_PICTURE',
      '  ',
      '123',
      'untitled',
      'KONICA MINOLTA DIGITAL CAMERA',
    ])
      expect(isDescriptive(t, camera), t).toBe(false);
    expect(isDescriptive('Canon EOS 7D', { make: 'Canon', model: 'Canon EOS 7D' })).toBe(false);
    expect(isDescriptive('PENTAX', { make: 'PENTAX Corporation ', model: 'PENTAX K10D' })).toBe(true); // not the make as written
  });
  it('accepts words that describe a picture', () => {
    for (const t of ['Mongol Els', 'Fall 2023 Week 3', 'Denali National Park and Preserve', 'Digital camera on a desk'])
      expect(isDescriptive(t, camera), t).toBe(true);
  });
});

describe('describeEmbedded', () => {
  it('leads the description with the title when the title adds words, else takes the first field there is', () => {
    expect(describeEmbedded({ ...NONE, title: 'Prairie falcon', description: 'A falcon leaves its nest.' }).caption).toBe(
      'Prairie falcon. A falcon leaves its nest.',
    );
    expect(describeEmbedded({ ...NONE, title: 'Mongol Els', description: 'Mongol Els' }).caption).toBe('Mongol Els');
    expect(describeEmbedded({ ...NONE, headline: 'Falcon in flight' }).caption).toBe('Falcon in flight');
    expect(describeEmbedded({ ...NONE, title: 'Denali' }).caption).toBe('Denali');
    expect(describeEmbedded({ ...NONE, description: 'SONY DSC', make: 'SONY' }).caption).toBeNull();
    expect(describeEmbedded({ ...NONE, description: 'SONY DSC', headline: 'Limestone rocks' }).caption).toBe('Limestone rocks');
  });
  it('cuts a long caption at a word, collapsing whitespace and control characters', () => {
    const caption = describeEmbedded({ ...NONE, description: `${'word '.repeat(80)}\u0000end` }).caption!;
    expect(caption.length).toBeLessThanOrEqual(CAPTION_MAX_CHARS);
    expect(caption).toMatch(/^(word )+word…$/);
    expect(describeEmbedded({ ...NONE, description: ' two\n\tlines ' }).caption).toBe('two lines');
  });
  it("keeps keywords once each, a hierarchy's leaf, at most KEYWORDS_MAX", () => {
    expect(
      describeEmbedded({ ...NONE, keywords: ['Birds', 'birds', 'People|Marie Curie', ' ', '42', 'untitled', 'AC/DC'] }).keywords,
    ).toEqual(['Birds', 'Marie Curie', 'AC/DC']);
    const many = Array.from({ length: 30 }, (_, i) => `keyword ${i}`);
    expect(describeEmbedded({ ...NONE, keywords: many }).keywords).toEqual(many.slice(0, KEYWORDS_MAX));
  });
});
