import { parse } from 'csv-parse/sync';
import type { ProductStatus } from '../../shared/schemas/product.ts';
import { isDecimalString, stableProductGid, stableVariantGid, type CatalogProductInput } from '../domain/catalog.ts';
import { ServiceError } from '../errors.ts';

/**
 * Parse Shopify's product CSV export (classic schema: Handle, Title, Body (HTML), Vendor, Type, Tags,
 * Published, Option1..3 Name/Value, Variant SKU/Inventory Tracker/Inventory Qty/Inventory Policy/Price/
 * Compare At Price, Image Src/Position/Alt Text, Variant Image, optional Status). Rows continue the
 * product of the previous row with the same Handle: a row with option values, SKU or price adds a
 * variant, a row with only Image Src adds an image. Format: https://help.shopify.com/en/manual/products/import-export/using-csv
 *
 * Ids: the CSV has none, so product and variant GIDs are derived deterministically from the handle and
 * option values (`domain/catalog.ts`); re-importing the file updates the same products.
 * Prices stay the decimal strings of the file. Every row is validated before anything is returned.
 * @param text CSV file contents (UTF-8, optional BOM)
 * @param source file name used in error fields
 * @throws ServiceError invalid_argument naming `<file> row <n> column "<name>"` and the rule broken
 */
export function parseShopifyCsv(text: string, source: string): CatalogProductInput[] {
  let records: string[][];
  try {
    records = parse(text, { bom: true, relax_column_count: true, skip_empty_lines: true }) satisfies string[][];
  } catch (e) {
    throw new ServiceError('invalid_argument', source, `is not a readable CSV file: ${(e as Error).message}`, { cause: e });
  }
  const header = records[0];
  if (!header || !header.includes('Handle')) {
    throw new ServiceError(
      'invalid_argument',
      source,
      'is not a Shopify product CSV: the header must contain a Handle column (Shopify product CSV format)',
    );
  }
  const col = new Map(header.map((h, i) => [h.trim(), i]));
  const products = new Map<string, CatalogProductInput & { optionNames: string[] }>();

  records.slice(1).forEach((rec, i) => {
    const rowNo = i + 2;
    const get = (name: string): string => {
      const idx = col.get(name);
      return idx === undefined ? '' : (rec[idx] ?? '').trim();
    };
    const at = (name: string): string => `${source} row ${rowNo} column "${name}"`;
    const handle = get('Handle').toLowerCase();
    if (!handle) throw new ServiceError('invalid_argument', at('Handle'), 'must not be empty: every row names the product it belongs to');
    let p = products.get(handle);
    if (!p) {
      const title = get('Title');
      if (!title) throw new ServiceError('invalid_argument', at('Title'), `is required on the first row of product "${handle}"`);
      p = {
        gid: stableProductGid(handle),
        handle,
        title,
        description_html: get('Body (HTML)'),
        status: statusOf(get('Status'), at('Status')),
        product_type: get('Type'),
        vendor: get('Vendor'),
        tags: get('Tags')
          .split(',')
          .map((t) => t.trim())
          .filter(Boolean),
        options: [],
        images: [],
        variants: [],
        selling_plan_groups: [],
        collections: [],
        total_inventory: null,
        platform_updated_at: null,
        optionNames: [1, 2, 3].map((n) => get(`Option${n} Name`)),
      };
      products.set(handle, p);
    }
    const values = [1, 2, 3].map((n) => get(`Option${n} Value`));
    const isVariant = values.some(Boolean) || get('Variant SKU') !== '' || get('Variant Price') !== '';
    if (isVariant) {
      const price = get('Variant Price');
      if (!isDecimalString(price))
        throw new ServiceError('invalid_argument', at('Variant Price'), `must be a decimal amount like 19.99 (got "${price}")`);
      const compare = get('Variant Compare At Price');
      if (compare && !isDecimalString(compare))
        throw new ServiceError('invalid_argument', at('Variant Compare At Price'), `must be a decimal amount or empty (got "${compare}")`);
      const qtyText = get('Variant Inventory Qty');
      const qty = qtyText === '' ? null : Number(qtyText);
      if (qty !== null && !Number.isInteger(qty))
        throw new ServiceError('invalid_argument', at('Variant Inventory Qty'), `must be an integer (got "${qtyText}")`);
      const selected = p.optionNames.map((name, k) => ({ name, value: values[k]! })).filter((o) => o.name && o.value);
      // Shopify sells an untracked variant, or a tracked one with stock or with the "continue" policy.
      const tracked = get('Variant Inventory Tracker') !== '';
      const available = !tracked || (qty ?? 0) > 0 || get('Variant Inventory Policy').toLowerCase() === 'continue';
      p.variants.push({
        gid: stableVariantGid(handle, values),
        title: selected.length ? selected.map((o) => o.value).join(' / ') : 'Default Title',
        price,
        compare_at_price: compare || null,
        sku: get('Variant SKU'),
        available,
        inventory_quantity: qty,
        image_url: get('Variant Image') || null,
        selected_options: selected,
      });
      for (const o of selected) {
        const opt =
          p.options.find((x) => x.name === o.name) ?? (p.options.push({ name: o.name, values: [] }), p.options[p.options.length - 1]!);
        if (!opt.values.includes(o.value)) opt.values.push(o.value);
      }
    }
    const src = get('Image Src');
    if (src) {
      if (!/^https?:\/\//i.test(src))
        throw new ServiceError('invalid_argument', at('Image Src'), `must be an absolute http(s) URL (got "${src}")`);
      const pos = Number(get('Image Position')) || p.images.length + 1;
      if (!p.images.some((im) => im.url === src))
        p.images.push({
          url: src,
          alt_text: get('Image Alt Text'),
          width: null,
          height: null,
          pos,
        } as CatalogProductInput['images'][number]);
    }
  });

  return [...products.values()].map(({ optionNames: _names, ...p }) => ({
    ...p,
    images: [...p.images]
      .sort((a, b) => ((a as { pos?: number }).pos ?? 0) - ((b as { pos?: number }).pos ?? 0))
      .map(({ url, alt_text, width, height }) => ({ url, alt_text, width, height })),
  }));
}

function statusOf(v: string, field: string): ProductStatus {
  if (v === '') return 'ACTIVE';
  const up = v.toUpperCase();
  if (up === 'ACTIVE' || up === 'DRAFT' || up === 'ARCHIVED') return up;
  throw new ServiceError('invalid_argument', field, `must be active, draft or archived (got "${v}")`);
}
