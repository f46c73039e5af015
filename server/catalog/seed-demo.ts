import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { App } from '../app.ts';
import type { Scope } from '../domain/scope.ts';
import { packagePath } from '../package-root.ts';
import type { TenantBundle } from '../tenancy/admin.ts';
import { importCatalogFile } from './import-file.ts';

/** Shopify's demo product CSVs committed with the repo (apparel, home-and-garden, jewelery). */
export const DEMO_CATALOG_DIR = packagePath('demo', 'catalog');

/** "home-and-garden" → "Home And Garden". */
const titleOf = (handle: string): string =>
  handle
    .split('-')
    .map((w) => (w ? w[0]!.toUpperCase() + w.slice(1) : w))
    .join(' ');

/**
 * Seed step: import every demo CSV into the demo store, each file's products into a collection named
 * after the file (`apparel`, `home-and-garden`, `jewelery`). Idempotent: GIDs are stable, and when the
 * files are unchanged since the last seed (sha256 kept in settings) nothing is written.
 */
export async function seedDemoCatalog(
  app: App,
  bundle: Pick<TenantBundle, 'store_id'>,
  scope: Scope,
  dir = DEMO_CATALOG_DIR,
): Promise<void> {
  if (!fs.existsSync(dir)) return;
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.toLowerCase().endsWith('.csv'))
    .sort();
  const hash = createHash('sha256');
  const texts = files.map((f) => {
    const text = fs.readFileSync(path.join(dir, f), 'utf8');
    hash.update(f).update(text);
    return { name: f, text };
  });
  const key = `demo_catalog:${bundle.store_id}:${hash.digest('hex')}`;
  const tenancy = app.library.tenancy;
  if ((await tenancy.getSetting(key)) !== undefined) return;
  const storeScope = { ...scope, storeId: bundle.store_id };
  for (const file of texts) {
    const handle = path.basename(file.name, path.extname(file.name)).toLowerCase();
    await importCatalogFile(app.catalog.deps, storeScope, file, { collection: { handle, title: titleOf(handle) } });
  }
  await tenancy.ensureSetting(key, new Date().toISOString());
}
