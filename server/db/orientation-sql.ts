import type { Orientation } from '../../shared/schemas/asset.ts';

/**
 * SQL condition for an orientation filter on `${alias}.width`/`height` (px), matching
 * `orientationOf`: landscape when w/h > 1.05, portrait when w/h < 0.95, else square. Assets without a
 * known size never match. The same SQL on SQLite and PostgreSQL.
 */
export function orientationSql(orientation: Orientation, alias = 'a'): string {
  const w = `${alias}.width`,
    h = `${alias}.height`;
  const known = `${w} > 0 AND ${h} > 0`;
  if (orientation === 'landscape') return `(${known} AND ${w} > ${h} * 1.05)`;
  if (orientation === 'portrait') return `(${known} AND ${w} < ${h} * 0.95)`;
  return `(${known} AND ${w} BETWEEN ${h} * 0.95 AND ${h} * 1.05)`;
}
