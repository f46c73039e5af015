import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { demoFile } from '../../e2e/mcp/harness.ts';
import { carriedMetadata, embeddedDescription, readEmbeddedFields, XMP_MAX_BYTES } from './embedded-metadata.ts';

/** An XMP packet with a dc:title and `padding` bytes of keywords after it. */
function xmp(title: string, padding = 0): string {
  const kw = '<rdf:li>kw</rdf:li>';
  return (
    '<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">' +
    '<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">' +
    `<dc:title><rdf:Alt><rdf:li xml:lang="x-default">${title}</rdf:li></rdf:Alt></dc:title>` +
    `<dc:subject><rdf:Bag>${kw.repeat(Math.ceil(padding / kw.length))}</rdf:Bag></dc:subject>` +
    '</rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>'
  );
}

/** A small WebP carrying `packet` as its XMP chunk and an EXIF ImageDescription. */
async function webp(packet: string, description: string): Promise<{ bytes: Buffer; xmp: Buffer | undefined }> {
  const bytes = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#c00' } })
    .withXmp(packet)
    .withExif({ IFD0: { ImageDescription: description, Make: 'SONY' } })
    .webp()
    .toBuffer();
  return { bytes, xmp: (await sharp(bytes).metadata()).xmp };
}

describe('readEmbeddedFields', () => {
  it('reads XMP, IPTC and EXIF fields of a real photo (JPEG) and a WebP', async () => {
    const falcon = demoFile('images/nature/prairie_falcon.jpg');
    const f = readEmbeddedFields(falcon, (await sharp(falcon).metadata()).xmp);
    expect(f.title).toBe('Prairie falcon female with eggs');
    expect(f.description).toMatch(/^Adult female prairie falcon flying from a nest/);
    expect(f.keywords).toEqual(expect.arrayContaining(['raptors', 'birds', 'prairie falcons']));
    const w = await webp(xmp('Red square'), 'SONY DSC');
    expect(readEmbeddedFields(w.bytes, w.xmp)).toMatchObject({ title: 'Red square', description: 'SONY DSC', make: 'SONY' });
    expect(embeddedDescription(w.bytes, w.xmp).caption).toBe('Red square'); // the placeholder dropped
  });

  it('parses no XMP packet over XMP_MAX_BYTES (hostile or bulky), and still reads the EXIF fields', async () => {
    const big = await webp(xmp('Hidden title', XMP_MAX_BYTES + 1024), 'A red square');
    expect(big.xmp!.length).toBeGreaterThan(XMP_MAX_BYTES);
    expect(readEmbeddedFields(big.bytes, big.xmp)).toMatchObject({ title: null, keywords: [], description: 'A red square' });
    const within = await webp(xmp('Kept title', XMP_MAX_BYTES - 4096), 'A red square');
    expect(readEmbeddedFields(within.bytes, within.xmp).title).toBe('Kept title');
  });

  it('gives nothing, without throwing, for bytes that are no image or whose metadata is broken', () => {
    const none = { title: null, headline: null, description: null, keywords: [], make: null, model: null };
    expect(readEmbeddedFields(Buffer.from('not an image'), undefined)).toEqual(none);
    expect(readEmbeddedFields(Buffer.from('not an image'), Buffer.from('<x:xmpmeta><rdf:RDF><unclosed'))).toEqual(none);
  });
});

describe('carriedMetadata', () => {
  it('carries the description and rights, never the camera or orientation, and no XMP packet over XMP_MAX_BYTES', async () => {
    const bytes = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#c00' } })
      .withExif({ IFD0: { ImageDescription: 'A red square', Artist: 'Jane Doe', Copyright: 'CC0', Make: 'SONY', Orientation: '6' } })
      .jpeg()
      .toBuffer();
    const packet = Buffer.from(xmp('Red square'));
    expect(carriedMetadata(bytes, packet)).toEqual({
      exif: { IFD0: { ImageDescription: 'A red square', Artist: 'Jane Doe', Copyright: 'CC0' } },
      xmp: packet.toString('utf8'),
    });
    expect(carriedMetadata(bytes, Buffer.from(xmp('Red square', XMP_MAX_BYTES + 1024))).xmp).toBeNull();
    expect(carriedMetadata(Buffer.from('not an image'), undefined)).toEqual({ exif: null, xmp: null });
  });
});
