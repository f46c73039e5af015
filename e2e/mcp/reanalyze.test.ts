import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { waitForEnrichment } from './enrichment-helpers.ts';
import { closeTestDatabase, demoFile, startTestServer } from './harness.ts';
import { spawnCli } from './processes.ts';

/** `atelier reanalyze`: assets analysed by an earlier version (here: never) get the current analysis. */
describe('atelier reanalyze', () => {
  // every server of a test runs on one data dir, as the processes of one deployment do; each is closed
  // before the next opens it, and the dir goes with the test
  let dataDir = '';
  afterEach(async () => {
    await closeTestDatabase(dataDir);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const newDataDir = (): string => (dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-reanalyze-')));

  it("queues a library's image assets for analysis; a running server analyses them, and search says so meanwhile", async () => {
    // a library whose photo was never analysed (enrichment off), as one from before an upgrade lacks its newer facts
    const before = await startTestServer({ dataDir: newDataDir(), env: { ATELIER_ENRICHMENT: '0' } });
    const { theme_id: theme, api_key } = before.tenant;
    const c0 = await before.connect();
    const imported = await c0.call('svc_asset_import', 'import', {
      data: demoFile('images/nature/prairie_falcon.jpg').toString('base64'),
      mime_type: 'image/jpeg',
      filename: 'IMG_1234.jpg',
    });
    expect(imported.error).toBeUndefined();
    expect((await c0.call('svc_asset_library', 'search', { theme_id: theme, query: 'falcon' })).structured.total).toBe(0);
    await before.close();

    const run = await spawnCli(['reanalyze', '--json'], { ATELIER_DATA_DIR: dataDir, ATELIER_PORT: '0' }).exited;
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ queued: 1 });

    // until a server analyses it, search counts it as being analysed and says to retry, not to generate
    const idle = await startTestServer({ dataDir, env: { ATELIER_ENRICHMENT: '0' } });
    const waiting = await (await idle.connect(api_key)).call('svc_asset_library', 'search', { theme_id: theme, query: 'falcon' });
    expect((waiting.structured.request as { indexing?: unknown }).indexing).toEqual({ pending: 1, total: 1 });
    expect(waiting.text).toMatch(/retry/i);
    await idle.close();

    // a server on that data dir, with enrichment on: the queued analysis runs; its caption makes the photo findable
    const after = await startTestServer({ dataDir });
    const c1 = await after.connect(api_key);
    await waitForEnrichment(c1, theme);
    const found = await c1.call('svc_asset_library', 'search', { theme_id: theme, query: 'falcon' });
    expect((found.structured.assets as { name: string }[]).map((a) => a.name)).toEqual(['IMG_1234.jpg']);
    expect((found.structured.assets as { enrichment_status: string }[])[0]!.enrichment_status).toBe('done');
    await after.close();
  });

  it('refuses a workspace that does not exist', async () => {
    const srv = await startTestServer({ dataDir: newDataDir(), env: { ATELIER_ENRICHMENT: '0' } });
    await srv.close();
    const run = await spawnCli(['reanalyze', '--workspace', '00000000-0000-4000-8000-000000000000'], {
      ATELIER_DATA_DIR: dataDir,
      ATELIER_PORT: '0',
    }).exited;
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('workspace 00000000-0000-4000-8000-000000000000 does not exist');
  });
});

describe('atelier import: alt text comes from enrichment, tags from folders', () => {
  let dataDir = '';
  afterEach(async () => {
    await closeTestDatabase(dataDir);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("types no alt text from file names, so enrichment writes it (here: the files' embedded captions); folders become tags", async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-cli-import-'));
    const before = await startTestServer({ dataDir, env: { ATELIER_ENRICHMENT: '0' } });
    const { theme_id: theme, api_key } = before.tenant;
    await before.close();
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-camera-'));
    fs.writeFileSync(path.join(folder, 'IMG_1234.jpg'), demoFile('images/nature/prairie_falcon.jpg'));
    fs.mkdirSync(path.join(folder, 'Places'));
    fs.writeFileSync(path.join(folder, 'Places', 'denali.webp'), demoFile('images/formats/denali.webp'));
    const run = await spawnCli(['import', folder, '--json'], { ATELIER_DATA_DIR: dataDir, ATELIER_PORT: '0' }).exited;
    fs.rmSync(folder, { recursive: true, force: true });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ imported: 2 });

    const after = await startTestServer({ dataDir });
    const c = await after.connect(api_key);
    await waitForEnrichment(c, theme);
    const search = async (query: string, mode = 'all') =>
      (await c.call('svc_asset_library', 'search', { theme_id: theme, query, mode })).structured.assets as {
        name: string;
        alt_text: string;
        tags: string[];
      }[];
    const falcon = await search('falcon');
    expect(falcon.map((a) => a.name)).toEqual(['IMG_1234.jpg']);
    expect(falcon[0]!.alt_text).toMatch(/^Prairie falcon female with eggs\. /);
    expect(falcon[0]!.tags).toEqual(expect.arrayContaining(['raptors', 'birds']));
    // a named file: its XMP title is the alt text, not its name's words ("Denali"); its folder is a tag
    const denali = await search('preserve', 'alt_text');
    expect(denali.map((a) => a.name)).toEqual(['denali.webp']);
    expect(denali[0]!.alt_text).toBe('Denali National Park and Preserve');
    expect(denali[0]!.tags).toContain('places');
    expect((await search('places', 'tags')).map((a) => a.name)).toEqual(['denali.webp']);
    await after.close();
  });
});
