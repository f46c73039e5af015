import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import cliProgress from 'cli-progress';
import type { App } from '../app.ts';
import { importCatalogFile, type CatalogImportResult } from '../catalog/import-file.ts';
import { syncCatalog } from '../catalog/sync.ts';
import type { StoreScope } from '../db/ports/product-store.ts';
import { ServiceError } from '../errors.ts';
import { boot } from '../main.ts';

/** Helpers of the main CLI module. */
export interface CliKit {
  emit(json: boolean, value: Record<string, unknown>, human: string): void;
  fail(message: string): never;
}

/** A determinate bar on a TTY (stderr), silent otherwise. */
function bar(label: string): { update(done: number, total: number, phase: string): void; stop(): void } {
  if (!process.stderr.isTTY) return { update: () => undefined, stop: () => undefined };
  const b = new cliProgress.SingleBar(
    { stream: process.stderr, format: ` ${label} {bar} {value}/{total} {phase}`, hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(done, total, phase) {
      if (!started) {
        b.start(Math.max(total, 1), 0, { phase });
        started = true;
      }
      b.setTotal(Math.max(total, done, 1));
      b.update(done, { phase });
    },
    stop: () => {
      if (started) b.stop();
    },
  };
}

/** The store named by --store (or the only active store), as a scope. */
async function storeScope(app: App, kit: CliKit, storeId: string | undefined): Promise<StoreScope & { shopDomain: string | null }> {
  const t = app.library.tenancy;
  if (storeId) {
    const s = await t.storeById(storeId);
    if (!s || s.status !== 'active') kit.fail(`store ${storeId} does not exist or is archived`);
    return { tenantId: s.tenant_id, workspaceId: s.workspace_id, storeId: s.id, shopDomain: s.shop_domain };
  }
  const stores = (await Promise.all((await t.operator.activeWorkspaces()).map((w) => t.storesOfWorkspace(w.tenant_id, w.id))))
    .flat()
    .filter((s) => s.status === 'active');
  if (stores.length !== 1)
    kit.fail(`${stores.length} active stores exist; pass --store (one of: ${stores.map((s) => `${s.id} "${s.name}"`).join(', ')})`);
  const s = stores[0]!;
  return { tenantId: s.tenant_id, workspaceId: s.workspace_id, storeId: s.id, shopDomain: s.shop_domain };
}

const explain = (e: unknown): string =>
  e instanceof ServiceError ? `${e.code}${e.field ? ` (${e.field})` : ''}: ${e.message}` : (e as Error).message;

/** `atelier catalog import|sync`: load a store's product catalog from files or from the Shopify Admin API. */
export function registerCatalogCommands(program: Command, kit: CliKit): void {
  const catalog = program
    .command('catalog')
    .description("manage a store's product catalog (read model behind list_products / get_product)");

  catalog
    .command('import')
    .description(
      'import Shopify product CSV exports and/or Admin REST products.json dumps into a store (re-import updates, never duplicates)',
    )
    .argument('<files...>', '.csv (Shopify product CSV) or .json (products.json) files')
    .option('--store <id>', 'target store (required when several active stores exist)')
    .option('--collection <handle>', 'also add every imported product to this collection (default: none)')
    .option(
      '--no-measure-images',
      'do not fetch product images to measure the width/height a CSV does not give (they stay null; offline imports)',
    )
    .option('--json', 'print one JSON summary {"store_id","files":[…]}')
    .action(async (files: string[], o: { store?: string; collection?: string; json?: boolean; measureImages: boolean }) => {
      const { app } = await boot();
      // the URL-import guard and limits: a catalog file is as untrusted as a URL an agent passes
      const measureImages = o.measureImages
        ? {
            fetch: {
              maxBytes: app.config.maxImportBytes,
              timeoutMs: app.config.fetchTimeoutMs,
              maxRedirects: 5,
              allowPrivate: app.config.allowPrivateUrls,
            },
            concurrency: 4,
          }
        : undefined;
      const scope = await storeScope(app, kit, o.store);
      const results: CatalogImportResult[] = [];
      try {
        for (const f of files) {
          const abs = path.resolve(f);
          if (!fs.existsSync(abs)) kit.fail(`${f} does not exist`);
          const b = bar(path.basename(f));
          const collection = o.collection ? { handle: o.collection, title: o.collection } : undefined;
          try {
            results.push(
              await importCatalogFile(
                app.catalog.deps,
                scope,
                { name: path.basename(abs), text: fs.readFileSync(abs, 'utf8') },
                {
                  ...(collection ? { collection } : {}),
                  ...(measureImages ? { measureImages } : {}),
                  onProgress: (d, t, phase) => b.update(d, t, phase),
                },
              ),
            );
          } finally {
            b.stop();
          }
        }
      } catch (e) {
        await app.close();
        kit.fail(explain(e));
      }
      await app.close();
      kit.emit(
        !!o.json,
        { store_id: scope.storeId, files: results },
        results
          .map(
            (r) =>
              `${r.file}: ${r.products} products (${r.created} new, ${r.updated} updated), ${r.variants} variants, ${r.embedded} embedded${r.image_sizes?.missing ? `, ${r.image_sizes.measured} of ${r.image_sizes.missing} image sizes measured` : ''}${r.embed_error ? ` — embedding failed: ${r.embed_error}` : ''}`,
          )
          .join('\n'),
      );
    });

  catalog
    .command('sync')
    .description(
      'pull the catalog from the Shopify Admin GraphQL API (ATELIER_SHOPIFY_SHOP, ATELIER_SHOPIFY_ACCESS_TOKEN); incremental after the first run',
    )
    .option('--store <id>', 'target store (required when several active stores exist)')
    .option('--shop <domain>', 'shop domain, e.g. my-shop.myshopify.com (overrides ATELIER_SHOPIFY_SHOP)')
    .option(
      '--full',
      'list every product again and drop the ones the shop no longer has (default: incremental by updated_at after the first sync)',
    )
    .option('--page-size <n>', 'products per Admin API page, 1–250', (v) => Number.parseInt(v, 10), 50)
    .option('--json', 'print the sync summary as JSON')
    .action(async (o: { store?: string; shop?: string; full?: boolean; pageSize: number; json?: boolean }) => {
      const { app } = await boot();
      const scope = await storeScope(app, kit, o.store);
      const b = bar('sync');
      try {
        const { client, endpoint } = app.catalog.adminClient(o.shop ?? null, scope.shopDomain);
        const r = await syncCatalog(app.catalog.deps, scope, client, {
          full: !!o.full,
          pageSize: o.pageSize,
          onProgress: (n, phase) => b.update(n, n, phase),
        });
        b.stop();
        await app.close();
        kit.emit(
          !!o.json,
          { store_id: scope.storeId, endpoint, ...r },
          `${r.mode} sync of ${endpoint}: ${r.upserted} products written over ${r.pages} page(s), ${r.deleted} deleted, ${r.throttled_retries} throttled retries, ${r.embedded} embedded${r.embed_error ? ` (embedding failed: ${r.embed_error})` : ''}; catalog_synced_at ${r.catalog_synced_at}`,
        );
      } catch (e) {
        b.stop();
        await app.close();
        kit.fail(explain(e));
      }
    });
}
