import { describe, expect, it } from 'vitest';
import { parseShopifyCsv } from './shopify-csv.ts';

const HEADER =
  'Handle,Title,Body (HTML),Vendor,Type,Tags,Option1 Name,Option1 Value,Option2 Name,Option2 Value,Variant SKU,Variant Inventory Tracker,Variant Inventory Qty,Variant Inventory Policy,Variant Price,Variant Compare At Price,Image Src,Image Position,Image Alt Text,Variant Image,Status';

describe('Shopify product CSV parsing', () => {
  it('continues a product by Handle: variants, image-only rows, options, availability and exact prices', () => {
    const csv = [
      HEADER,
      'tee,"Tee, organic",<p>Soft</p>,Acme,Shirts,"a, b",Size,S,Color,Red,T-S-R,shopify,0,deny,19.99,,https://x.test/1.jpg,1,Front,https://x.test/1.jpg,active',
      'tee,,,,,,,M,,Red,T-M-R,shopify,0,continue,20.00,25.5,https://x.test/2.jpg,2,,,',
      'tee,,,,,,,,,,,,,,,,https://x.test/3.jpg,3,Back,,',
      'mug,Mug,,Acme,Kitchen,,Title,Default Title,,,,,,deny,8,,,,,,draft',
    ].join('\n');
    const [tee, mug] = parseShopifyCsv(csv, 'f.csv');
    expect(tee).toMatchObject({
      handle: 'tee',
      title: 'Tee, organic',
      status: 'ACTIVE',
      product_type: 'Shirts',
      tags: ['a', 'b'],
      options: [
        { name: 'Size', values: ['S', 'M'] },
        { name: 'Color', values: ['Red'] },
      ],
    });
    expect(tee!.variants.map((v) => [v.title, v.price, v.compare_at_price, v.available, v.sku])).toEqual([
      ['S / Red', '19.99', null, false, 'T-S-R'],
      ['M / Red', '20.00', '25.5', true, 'T-M-R'],
    ]);
    expect(tee!.variants[0]!.image_url).toBe('https://x.test/1.jpg');
    expect(tee!.images.map((i) => [i.url, i.alt_text])).toEqual([
      ['https://x.test/1.jpg', 'Front'],
      ['https://x.test/2.jpg', ''],
      ['https://x.test/3.jpg', 'Back'],
    ]);
    expect(mug).toMatchObject({
      status: 'DRAFT',
      variants: [{ title: 'Default Title', price: '8', available: true, selected_options: [{ name: 'Title', value: 'Default Title' }] }],
    });
  });

  it('names file, row and column of a bad value', () => {
    expect(() => parseShopifyCsv(`${HEADER}\ntee,Tee,,,,,,,,,,,,,abc,,,,,,`, 'f.csv')).toThrow(
      expect.objectContaining({ field: 'f.csv row 2 column "Variant Price"' }),
    );
    expect(() => parseShopifyCsv(`${HEADER}\ntee,,,,,,,,,,,,,,1,,,,,,`, 'f.csv')).toThrow(
      expect.objectContaining({ field: 'f.csv row 2 column "Title"' }),
    );
    expect(() => parseShopifyCsv(`${HEADER}\ntee,Tee,,,,,,,,,,,,,1,,,,,,sold`, 'f.csv')).toThrow(
      expect.objectContaining({ field: 'f.csv row 2 column "Status"' }),
    );
    expect(() => parseShopifyCsv('Name,Price\nx,1', 'f.csv')).toThrow(
      expect.objectContaining({ code: 'invalid_argument', field: 'f.csv' }),
    );
  });
});
