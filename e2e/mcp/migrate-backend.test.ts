import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importCatalogFile } from '../../server/catalog/import-file.ts';
import { startPgliteServer } from '../../server/db/contract/pglite-server.ts';
import { createTestSchema, TEST_POSTGRES_URL, type TestSchema } from '../../server/db/contract/pg-test-database.ts';
import { sqliteOf } from '../../server/stores.ts';
import { openPgStores } from '../../server/stores-pg.ts';
import { waitForEnrichment } from './enrichment-helpers.ts';
import { backendEnv, DEMO_DIR, demoFile, ON_S3, startTestServer, type TestClient } from './harness.ts';
import { resume, spawnCli, waitPaused } from './processes.ts';

/**
 * `atelier migrate-backend` end to end: a SQLite data dir seeded through the real server (3 photos
 * imported over MCP and enriched, a Shopify CSV through the catalog import path, the tenant's API key)
 * is copied by the real CLI into a fresh schema of the machine's PostgreSQL 15 and a new blob store —
 * a directory, or under `npm run test:scale` (ATELIER_BLOB_STORE=s3://…) a fresh prefix on S3; a server on the target then answers the OLD key with the same asset ids and URLs, views
 * an asset from the copied blobs and lists the products; a second run into the now non-empty target
 * refuses. PostgreSQL 15 here has no pgvector, so the asset vectors are skipped with a warning there;
 * the second case copies them into PGlite (pgvector) and reads them back.
 */

const PHOTOS = ['images/nature/prairie_falcon.jpg', 'images/nature/silver_fir.jpg', 'images/nature/el_torcal_rocks.jpg'];

interface Listed {
  id: string;
  name: string;
  url: string;
  thumbnail_url: string;
  original_url: string;
  alt_text: string | null;
  tags: string[];
}

const dirs: string[] = [];
const tempDir = (): string => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-migrate-'));
  dirs.push(d);
  return d;
};
let schema: TestSchema | null = null;

afterAll(async () => {
  await schema?.drop();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

async function snapshot(c: TestClient, theme: string, storeId: string) {
  const browse = await c.call('svc_asset_library', 'search', { theme_id: theme, limit: 50 });
  const falcon = await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'falcon', mode: 'all' });
  const products = await c.call('svc_catalog', 'list_products', { store_id: storeId, limit: 50 });
  const shirts = await c.call('svc_catalog', 'list_products', { store_id: storeId, query: 'shirt', search_mode: 'lexical' });
  for (const r of [browse, falcon, products, shirts]) expect(r.error).toBeUndefined();
  return {
    assets: (browse.structured.assets as Listed[]).map(({ id, name, url, thumbnail_url, original_url, alt_text, tags }) => ({
      id,
      name,
      url,
      thumbnail_url,
      original_url,
      alt_text,
      tags,
    })),
    falcon: (falcon.structured.assets as Listed[]).map((a) => a.id),
    products: { total: products.structured.total, ids: (products.structured.items as { product_id: string }[]).map((p) => p.product_id) },
    shirts: (shirts.structured.items as { product_id: string }[]).map((p) => p.product_id),
  };
}

describe('atelier migrate-backend', () => {
  it('copies a SQLite data dir into PostgreSQL and a blob dir; the old key finds the same assets there; a second run refuses', async () => {
    // 1. the source: a SQLite data dir written by the real server
    const from = tempDir();
    const src = await startTestServer({ dataDir: from, embedded: true });
    const key = src.tenant.api_key;
    const { theme_id: theme, store_id: storeId, tenant_id: tenantId, workspace_id: workspaceId } = src.tenant;
    const c = await src.connect();
    for (const file of PHOTOS) {
      const r = await c.call('svc_asset_import', 'import', {
        data: demoFile(file).toString('base64'),
        mime_type: 'image/jpeg',
        filename: path.basename(file),
        tags: ['migrated'],
      });
      expect(r.error).toBeUndefined();
    }
    await waitForEnrichment(c, theme);
    const csv = fs.readFileSync(path.join(DEMO_DIR, 'catalog', 'apparel.csv'), 'utf8');
    const imported = await importCatalogFile(
      src.app.catalog.deps,
      { tenantId, workspaceId, storeId },
      { name: 'apparel.csv', text: csv },
      { collection: { handle: 'apparel', title: 'Apparel' } },
    );
    // operator state through the ports: a synonym rule, a credit budget and one settled charge
    const scope = { tenantId, workspaceId };
    const stores = src.app.stores;
    await stores.synonyms.add(scope, null, { kind: 'two_way', input: null, words: ['falcon', 'raptor'] });
    await stores.credits.setBudget(scope, 100);
    const hold = await stores.credits.reserve(scope, 7, 100, 60_000);
    expect(hold.ok).toBe(true);
    if (hold.ok) await stores.credits.settle(scope, hold.holdId, { assetId: null, provider: 'test', model: 'm', credits: 7 });
    // a cursor minted by the source server (signed with its cursor_secret)
    const page1 = await c.call('svc_asset_library', 'search', { theme_id: theme, limit: 2 });
    const cursor = page1.structured.next_cursor as string;
    expect(cursor).toBeTruthy();
    const page2 = await c.call('svc_asset_library', 'search', { theme_id: theme, limit: 2, cursor });
    expect(page2.error).toBeUndefined();
    expect(imported.products).toBeGreaterThan(0);
    const before = await snapshot(c, theme, storeId);
    expect(before.assets).toHaveLength(3);
    expect(before.falcon[0]).toBe(before.assets.find((a) => a.name === 'prairie_falcon.jpg')!.id);
    expect(before.products.total).toBe(imported.products);
    expect(before.shirts.length).toBeGreaterThan(0);
    await src.close();

    // 2. the copy, by the real CLI, into a fresh schema and a new blob store: on S3 (the prefix the
    // target's test server gets: backendEnv) when the run has S3, else a new directory
    schema = await createTestSchema({ migrate: false });
    const to = tempDir();
    const db = { ATELIER_DATABASE_URL: TEST_POSTGRES_URL, ATELIER_DATABASE_SCHEMA: schema.name };
    const env = { ...backendEnv(path.basename(to)), ...db, ATELIER_DATA_DIR: to };
    const args = ['migrate-backend', '--from', from, ...(ON_S3 ? [] : ['--to-blobs', path.join(to, 'blobs')]), '--json'];
    const run = await spawnCli(args, env).exited;
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout) as {
      ok: boolean;
      tables: { table: string; source: number; target: number; ok: boolean }[];
      identities: { assets: boolean; products: boolean };
      blobs: { referenced: number; copied: number; failures: unknown[]; missing_in_target: string[] };
      vectors: unknown;
      vectors_skipped: string | null;
      not_copied: string[];
    };
    expect(summary.ok).toBe(true);
    const rows = Object.fromEntries(summary.tables.map((t) => [t.table, t]));
    expect(rows.assets).toMatchObject({ source: 3, target: 3 });
    expect(rows.products!.target).toBe(imported.products);
    expect(rows.product_variants!.target).toBe(imported.variants);
    expect(rows.api_keys!.target).toBe(1);
    expect(rows.asset_enrichment!.target).toBe(3);
    expect(rows.asset_renditions!.target).toBeGreaterThanOrEqual(3);
    expect(rows.product_embeddings!.target).toBe(imported.embedded);
    expect(rows.collection_products!.target).toBe(imported.products);
    expect(rows.search_synonyms!.target).toBe(1);
    expect(rows.credit_budgets!.target).toBe(1);
    expect(rows.credit_ledger!.target).toBe(1);
    expect(rows.settings!.target).toBeGreaterThanOrEqual(2);
    expect(summary.tables.every((t) => t.ok && t.source === t.target)).toBe(true);
    expect(summary.identities).toEqual({ assets: true, products: true });
    // originals and renditions, each read back from the target and hashed
    expect(summary.blobs.copied).toBe(summary.blobs.referenced);
    expect(summary.blobs.referenced).toBeGreaterThan(3);
    expect(summary.blobs.failures).toEqual([]);
    expect(summary.blobs.missing_in_target).toEqual([]);
    // the machine's PostgreSQL 15 has no pgvector: vectors are skipped, and said so
    expect(summary.vectors).toBeNull();
    expect(summary.vectors_skipped).toMatch(/vector/);
    expect(summary.not_copied.join(' ')).toMatch(/uploads.*pickers/);

    // 3. a server on the target answers the old key with the same ids and URLs
    const dst = await startTestServer({ dataDir: to, env: db });
    try {
      expect(dst.app.stores.backend).toBe('postgres');
      expect(dst.config.blobStore.kind).toBe(ON_S3 ? 's3' : 'local');
      if (!ON_S3) expect(fs.readdirSync(path.join(to, 'blobs')).length).toBeGreaterThan(0);
      const d = await dst.connect(key);
      const after = await snapshot(d, theme, storeId);
      expect(after.assets).toEqual(before.assets);
      expect(after.falcon[0]).toBe(before.falcon[0]);
      expect(after.products).toEqual(before.products);
      expect(new Set(after.shirts)).toEqual(new Set(before.shirts));
      // the source's cursor still pages on the target (cursor_secret and asset seqs kept)
      const next = await d.call('svc_asset_library', 'search', { theme_id: theme, limit: 2, cursor });
      expect(next.error).toBeUndefined();
      expect((next.structured.assets as Listed[]).map((a) => a.id)).toEqual((page2.structured.assets as Listed[]).map((a) => a.id));
      // synonyms and credits arrived ("raptor", a word of the copied rule, finds the falcon)
      const raptor = await d.call('svc_asset_library', 'search', { theme_id: theme, query: 'raptor', mode: 'all' });
      expect((raptor.structured.assets as Listed[])[0]?.id).toBe(before.falcon[0]);
      expect(await dst.app.stores.credits.used(scope)).toBe(7);
      expect(await dst.app.stores.credits.budget(scope)).toBe(100);
      // a new asset on the target takes a seq after the copied ones
      const fresh = await d.call('svc_asset_import', 'import', {
        data: demoFile('images/nature/wood_anemones.jpg').toString('base64'),
        mime_type: 'image/jpeg',
        filename: 'wood_anemones.jpg',
      });
      expect(fresh.error).toBeUndefined();
      const view = await d.call('svc_assets', 'view', { asset_id: before.assets[0]!.id });
      expect(view.error).toBeUndefined();
      expect(view.structured.url).toBe(before.assets[0]!.url);
      expect(view.content.some((x) => x.type === 'image')).toBe(true);

      // 4. the target is no longer empty: a second run refuses and names what is there
      const again = await spawnCli(args, env).exited;
      expect(again.code).toBe(2);
      expect(again.stderr).toMatch(/is not empty: settings \(\d+ rows\), tenants \(2 rows\)/);
      expect(again.stdout).toBe('');
    } finally {
      await dst.close();
    }
  }, 180_000);

  it('copies the asset vectors into a PostgreSQL with pgvector (PGlite) and they read back equal', async () => {
    const from = tempDir();
    const src = await startTestServer({ dataDir: from, embedded: true });
    const c = await src.connect();
    for (const file of PHOTOS.slice(0, 2)) {
      const r = await c.call('svc_asset_import', 'import', {
        data: demoFile(file).toString('base64'),
        mime_type: 'image/jpeg',
        filename: path.basename(file),
      });
      expect(r.error).toBeUndefined();
    }
    await waitForEnrichment(c, src.tenant.theme_id);
    const scope = { tenantId: src.tenant.tenant_id, workspaceId: src.tenant.workspace_id };
    const [space] = await src.app.stores.vectors.liveSpaces('asset_text');
    expect(space).toBeDefined();
    const seqs = (sqliteOf(src.app.stores).prepare('SELECT seq FROM assets ORDER BY seq').all() as { seq: number }[]).map((r) => r.seq);
    const before = await Promise.all(seqs.map((q) => src.app.stores.vectors.get(scope, space!, q)));
    expect(before.every((v) => v !== null)).toBe(true);
    await src.close();

    const pglite = await startPgliteServer();
    try {
      const target = await pglite.schema();
      const to = tempDir();
      const env = {
        ATELIER_DATABASE_URL: pglite.url,
        ATELIER_DATABASE_SCHEMA: target.name,
        ATELIER_DATABASE_POOL_MAX: '1',
        ATELIER_DATA_DIR: to,
      };
      const run = await spawnCli(['migrate-backend', '--from', from, '--to-blobs', path.join(to, 'blobs'), '--json'], env).exited;
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const summary = JSON.parse(run.stdout) as { ok: boolean; vectors: { purpose: string; source: number; target: number }[] | null };
      expect(summary.ok).toBe(true);
      expect(summary.vectors).toContainEqual(expect.objectContaining({ purpose: 'asset_text', source: 2, target: 2 }));
      // the vectors themselves, read back through the target's port
      const stores = await openPgStores({ url: pglite.url, schema: target.name, poolMax: 1 });
      try {
        const [copied] = await stores.vectors.liveSpaces('asset_text');
        expect(copied).toMatchObject({ status: 'ready' }); // promoted: its count matched the source's
        const after = await Promise.all(seqs.map((q) => stores.vectors.get(scope, copied!, q)));
        expect(after.map((v) => Array.from(v!))).toEqual(before.map((v) => Array.from(v!)));
      } finally {
        await stores.close();
      }
    } finally {
      await pglite.stop();
    }
  }, 180_000);

  it('a run killed while copying vectors leaves the target space building (a server backfills it), not ready', async () => {
    const from = tempDir();
    const src = await startTestServer({ dataDir: from, embedded: true });
    const c = await src.connect();
    const r = await c.call('svc_asset_import', 'import', {
      data: demoFile(PHOTOS[0]!).toString('base64'),
      mime_type: 'image/jpeg',
      filename: path.basename(PHOTOS[0]!),
    });
    expect(r.error).toBeUndefined();
    await waitForEnrichment(c, src.tenant.theme_id);
    expect(await src.app.stores.vectors.liveSpaces('asset_text')).toMatchObject([{ status: 'ready' }]);
    await src.close();
    const pglite = await startPgliteServer();
    try {
      const target = await pglite.schema();
      const to = tempDir();
      const pd = tempDir();
      const env = {
        ATELIER_DATABASE_URL: pglite.url,
        ATELIER_DATABASE_SCHEMA: target.name,
        ATELIER_DATABASE_POOL_MAX: '1',
        ATELIER_DATA_DIR: to,
        ATELIER_TEST_PAUSE_AT: 'migrate-vectors',
        ATELIER_TEST_PAUSE_DIR: pd,
      };
      const run = spawnCli(['migrate-backend', '--from', from, '--to-blobs', path.join(to, 'blobs'), '--json'], env);
      // The rows have committed and the target space exists; not one vector is copied when the run dies.
      await waitPaused(pd, 'migrate-vectors');
      run.proc.kill('SIGKILL');
      await run.exited;
      resume(pd, 'migrate-vectors');
      const stores = await openPgStores({ url: pglite.url, schema: target.name, poolMax: 1 });
      try {
        expect(await stores.vectors.liveSpaces('asset_text')).toMatchObject([{ status: 'building' }]);
      } finally {
        await stores.close();
      }
    } finally {
      await pglite.stop();
    }
  }, 180_000);
});
