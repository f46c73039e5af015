import { jsonStrings } from './asset-json.ts';
import type { AssetCard } from './ports/asset-store.ts';

/**
 * The card columns of `a` and its narrowest thumbnail (two probes of the renditions' primary key), in
 * the order `cardOfValues` reads them; the same SQL on SQLite and PostgreSQL.
 */
export const CARD_COLUMNS =
  'a.seq, a.id, a.kind, a.format, a.width, a.height, a.blob_key, a.name, a.alt_text, a.tags, a.auto_tags, a.purpose, a.category, a.subtype, a.enrichment_status, ' +
  "(SELECT r.blob_key FROM asset_renditions r WHERE r.asset_seq = a.seq AND r.role = 'thumbnail' ORDER BY r.width LIMIT 1), " +
  "(SELECT r.format FROM asset_renditions r WHERE r.asset_seq = a.seq AND r.role = 'thumbnail' ORDER BY r.width LIMIT 1)";
/** A raw row of `SELECT ${CARD_COLUMNS}` as an `AssetCard` (`seq` as a number, tags as arrays). @throws SyntaxError on malformed tags JSON */
export function cardOfValues(v: unknown[]): AssetCard {
  return {
    seq: Number(v[0]),
    id: v[1] as AssetCard['id'],
    kind: v[2] as AssetCard['kind'],
    format: v[3] as AssetCard['format'],
    width: v[4] as AssetCard['width'],
    height: v[5] as AssetCard['height'],
    key: v[6] as string,
    name: v[7] as AssetCard['name'],
    alt_text: v[8] as AssetCard['alt_text'],
    tags: jsonStrings(v[9] as string),
    auto_tags: jsonStrings(v[10] as string),
    purpose: v[11] as AssetCard['purpose'],
    category: v[12] as AssetCard['category'],
    subtype: v[13] as AssetCard['subtype'],
    enrichment_status: v[14] as AssetCard['enrichment_status'],
    thumbnail: v[15] === null ? null : { key: v[15] as string, format: v[16] as string },
  };
}
