/**
 * Product image sizes from a product CSV (issue 34 item 5): Shopify's CSV export has no image width or
 * height, so `atelier catalog import` fetches each image through the URL-import guard and measures it;
 * an image that cannot be fetched keeps null (as the README says), and `--no-measure-images` skips it.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendEnv, REPO_ROOT, startTestServer, type TestClient, type TestServer } from './harness.ts';
import { CLI } from './processes.ts';

const run = promisify(execFile);

describe('catalog import measures the product images a CSV gives no size for', () => {
  let images: http.Server;
  let origin: string;
  let ts: TestServer;
  let c: TestClient;
  let csv: string;
  beforeAll(async () => {
    const png = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#8a5a2b' } })
      .png()
      .toBuffer();
    images = http.createServer((req, res) => {
      if (req.url === '/boot.png') res.writeHead(200, { 'content-type': 'image/png' }).end(png);
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => images.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(images.address() as { port: number }).port}`;
    ts = await startTestServer({ env: { ATELIER_ENRICHMENT: '0' } });
    c = await ts.connect();
    csv = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-csv-')), 'boots.csv');
    fs.writeFileSync(
      csv,
      'Handle,Title,Body (HTML),Vendor,Type,Tags,Published,Variant Price,Image Src,Image Position,Image Alt Text\n' +
        `chelsea-boot,Chelsea Boot,Leather ankle boot,Acme,Boots,leather,true,120.00,${origin}/boot.png,1,Brown boot\n` +
        `chelsea-boot,,,,,,,,${origin}/gone.png,2,Side view\n`,
    );
  });
  afterAll(async () => {
    await ts.close();
    await new Promise((r) => images.close(r));
  });

  const importCsv = async (...flags: string[]): Promise<Record<string, unknown>> => {
    const env = {
      ...process.env,
      ...backendEnv(path.basename(ts.config.dataDir)),
      ATELIER_DATA_DIR: ts.config.dataDir,
      ATELIER_LOG_LEVEL: 'silent',
      ATELIER_ALLOW_PRIVATE_URLS: '1',
    };
    const out = await run(process.execPath, [CLI, 'catalog', 'import', csv, '--store', ts.tenant.store_id, '--json', ...flags], {
      env,
      cwd: REPO_ROOT,
    });
    return (JSON.parse(out.stdout) as { files: Record<string, unknown>[] }).files[0]!;
  };
  const bootImages = async (): Promise<{ url: string; width: number | null; height: number | null }[]> => {
    const list = await c.call('svc_catalog', 'list_products', { query: 'chelsea boot', search_mode: 'lexical' });
    const id = (list.structured.items as { product_id: string }[])[0]!.product_id;
    const got = await c.call('svc_catalog', 'get_product', { product_ids: [id] });
    return (got.structured.products as { images: { url: string; width: number | null; height: number | null }[] }[])[0]!.images;
  };

  it('--no-measure-images leaves the sizes null', async () => {
    expect((await importCsv('--no-measure-images')).image_sizes).toBeNull();
    expect((await bootImages()).map((i) => [i.width, i.height])).toEqual([
      [null, null],
      [null, null],
    ]);
  });

  it('by default the reachable image gets its pixel size and the unreachable one stays null', async () => {
    expect((await importCsv()).image_sizes).toEqual({ missing: 2, measured: 1, failed: 1 });
    expect(await bootImages()).toMatchObject([
      { url: `${origin}/boot.png`, width: 300, height: 200 },
      { url: `${origin}/gone.png`, width: null, height: null },
    ]);
  });
});
