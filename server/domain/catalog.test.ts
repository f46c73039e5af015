import { describe, expect, it } from 'vitest';
import { canonicalPrice, htmlToText, isDecimalString, productEmbeddingText, stableProductGid, stableVariantGid } from './catalog.ts';

describe('catalog domain', () => {
  it('derives stable, well-formed GIDs from handles and option values', () => {
    const a = stableProductGid('ocean-blue-shirt');
    expect(a).toMatch(/^gid:\/\/shopify\/Product\/9\d{17}$/);
    expect(stableProductGid('Ocean-Blue-Shirt')).toBe(a);
    expect(stableProductGid('ocean-blue-shirts')).not.toBe(a);
    const v = stableVariantGid('x', ['S', 'Red', '']);
    expect(v).toMatch(/^gid:\/\/shopify\/ProductVariant\/9\d{17}$/);
    expect(stableVariantGid('x', ['S', 'Red', ''])).toBe(v);
    expect(stableVariantGid('x', ['M', 'Red', ''])).not.toBe(v);
  });

  it('strips HTML to text with entities decoded', () => {
    expect(
      htmlToText('<p>Classic <b>clay</b> pot&nbsp;&amp; saucer</p><script>x()</script><ul><li>one</li><li>two &#233;&#x41;</li></ul>'),
    ).toBe('Classic clay pot & saucer one two éA');
  });

  it('accepts only decimal strings as money', () => {
    for (const ok of ['19.99', '500', '0.5', '-1.00']) expect(isDecimalString(ok)).toBe(true);
    for (const bad of ['', '12,50', '1e3', '$5', '5.', '.5', 'NaN']) expect(isDecimalString(bad)).toBe(false);
  });

  it('spells money with at least two decimal places, as the Admin GraphQL Money scalar does', () => {
    const cases: [string, string][] = [
      ['80', '80.00'],
      ['19.9', '19.90'],
      ['19.99', '19.99'],
      ['0.125', '0.125'],
      ['007', '7.00'],
      ['0', '0.00'],
      ['-1', '-1.00'],
    ];
    for (const [raw, want] of cases) expect(canonicalPrice(raw)).toBe(want);
  });

  it('builds the embedding text without the placeholder variant title', () => {
    const t = productEmbeddingText({
      title: 'Cream Sofa',
      product_type: 'Indoor',
      vendor: 'Company 123',
      tags: ['Couch', 'Wood'],
      description_text: 'Comfortable',
      variant_titles: ['Default Title'],
    });
    expect(t).toBe('Cream Sofa. Indoor. Company 123. Couch, Wood. Comfortable');
  });
});
