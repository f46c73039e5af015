import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { DEMO_DIR, REPO_ROOT } from '../mcp/harness.ts';
import { expect, test, type HostEvent } from './fixtures.ts';

const JPEG = path.join(DEMO_DIR, 'images/text/craft-beer.jpg'); // 6000×4000 px, 1.7 MB
const HEIC = path.join(REPO_ROOT, 'e2e/fixtures/heic/IMG_2682-640.heic'); // 640×480, 44 KB → 1 chunk (e2e/fixtures/heic/README.md)
const WEBM = path.join(REPO_ROOT, 'e2e/fixtures/canvas-clip.webm'); // 9.5 KB VP9 clip (make-canvas-clip.mjs)

type ToolCall = { name: string; arguments: { action: string; args: Record<string, unknown> } };
const calls = (events: HostEvent[], action?: string): ToolCall[] =>
  events
    .filter((e) => e.type === 'tools/call')
    .map((e) => e.params as ToolCall)
    .filter((p) => p.name === 'svc_asset_upload_app' && (!action || p.arguments.action === action));
/**
 * A PNG of 800×800 px of random noise, stored uncompressed: 1.92 MB, so 4 chunks of 512 KiB, with pixels that
 * cost little to decode. The transfer tests send it instead of a 24-MP photo, whose import (decode and
 * renditions, about 2 CPU s) took 8–10 s of `complete` when another Playwright worker shared the 2 cores.
 */
const noisePng = async (): Promise<{ name: string; mimeType: string; buffer: Buffer }> => ({
  name: 'noise.png',
  mimeType: 'image/png',
  buffer: await sharp(randomBytes(800 * 800 * 3), { raw: { width: 800, height: 800, channels: 3 } })
    .png({ compressionLevel: 0 })
    .toBuffer(),
});
const stagingEntries = (dataDir: string): string[] =>
  fs.existsSync(path.join(dataDir, 'staging')) ? fs.readdirSync(path.join(dataDir, 'staging')) : [];

// Nothing here reads what enrichment adds; without it the uploads' import has the server's share of the CPU.
test.use({ serverEnv: { ATELIER_ENRICHMENT: '0' } });

test.describe('upload panel', () => {
  test('uploads a real JPEG (with alt text and tags typed in the panel) and a real HEIC; both reach the library and the conversation', async ({
    atelier,
  }) => {
    test.setTimeout(180_000);
    const { view, result } = await atelier.open('svc_asset_upload', 'upload', {});
    expect(result.isError).toBeFalsy();
    await expect(view.getByTestId('upload-panel')).toBeVisible();
    await view.locator('input[type="file"]').first().setInputFiles([JPEG, HEIC]);
    await expect(view.locator('.uppy-Dashboard-Item')).toHaveCount(2);
    // The JPEG gets a data: preview (blob: URLs are blocked by the spec-default CSP).
    await expect(view.locator('.uppy-Dashboard-Item img').first()).toHaveAttribute('src', /^data:image\/jpeg;base64,/);

    await view.getByRole('button', { name: 'Edit file craft-beer.jpg' }).click();
    await view.locator('#uppy-Dashboard-FileCard-input-alt_text').fill('Three craft beer bottles on a bar');
    await view.locator('#uppy-Dashboard-FileCard-input-tags').fill('beer, bar');
    await view.getByRole('button', { name: 'Save changes' }).click();
    await atelier.screenshot('upload-light');

    await view.locator('.uppy-StatusBar-actionBtn--upload').click();
    await expect(view.getByTestId('uploaded-item')).toHaveCount(2, { timeout: 120_000 }); // HEIC decoding (libheif wasm) is slow on a busy machine

    // Bytes travelled in ≤ 512 KiB chunks through the panel-only router; both sessions completed.
    const events = await atelier.events();
    const chunks = calls(events, 'chunk');
    expect(chunks).toHaveLength(5);
    for (const c of chunks) expect(Buffer.from(c.arguments.args.data as string, 'base64').length).toBeLessThanOrEqual(512 * 1024);
    expect(calls(events, 'complete')).toHaveLength(2);

    // The assets are in the library with the typed metadata; the HEIC became a PNG.
    const lib = await atelier.client.call('svc_asset_library', 'search', { theme_id: atelier.server.tenant.theme_id });
    const assets = lib.structured.assets as {
      id: string;
      name: string;
      alt_text: string | null;
      tags: string[];
      format: string;
      url: string;
    }[];
    expect(assets).toHaveLength(2);
    const jpeg = assets.find((a) => a.name === 'craft-beer.jpg');
    const png = assets.find((a) => a.name === 'IMG_2682-640.png');
    expect(jpeg).toMatchObject({ alt_text: 'Three craft beer bottles on a bar', format: 'jpeg' });
    expect(jpeg?.tags).toEqual(expect.arrayContaining(['beer', 'bar']));
    expect(png).toMatchObject({ format: 'png' });

    // The agent learns about both: model context (all uploads) and one user message with id, name and URL.
    await expect.poll(async () => (await atelier.events('ui/message')).length).toBe(1);
    const message = (await atelier.events('ui/message'))[0]!.params as { role: string; content: { type: string; text: string }[] };
    expect(message.role).toBe('user');
    for (const a of [jpeg!, png!]) {
      expect(message.content[0]!.text).toContain(`asset_id ${a.id}`);
      expect(message.content[0]!.text).toContain(a.name);
      expect(message.content[0]!.text).toContain(a.url);
    }
    const context = (await atelier.events('ui/update-model-context')).at(-1)?.params as {
      structuredContent: { uploads: { asset_id: string }[] };
    };
    expect(context.structuredContent.uploads.map((u) => u.asset_id).sort()).toEqual([jpeg!.id, png!.id].sort());
    expect(stagingEntries(atelier.server.config.dataDir).length).toBeLessThanOrEqual(2); // verified files kept for attachments until the TTL

    // The HEIC, which Chromium cannot preview, shows the server's rendition once stored (a data: URL).
    await expect(view.locator('.uppy-Dashboard-Item img')).toHaveCount(2);
    for (const img of await view.locator('.uppy-Dashboard-Item img').all())
      await expect(img).toHaveAttribute('src', /^data:image\/jpeg;base64,/);
    await atelier.screenshot('upload-done-light');
    await atelier.setTheme('dark');
    await expect(view.locator('html')).toHaveAttribute('data-theme', 'dark');
    await atelier.screenshot('upload-done-dark');

    // A host that remounts the panel (same tool result) shows the list again and sends nothing new.
    const again = await atelier.remount();
    await expect(again.view.getByTestId('uploaded-item')).toHaveCount(2);
    await expect(again.view.getByTestId('uploaded-list')).toContainText('IMG_2682-640.png');
    expect(await atelier.events('ui/message')).toHaveLength(1);
  });

  test('rejects a file type the library does not take with a clear message, and takes a video', async ({ atelier }) => {
    const { view } = await atelier.open('svc_asset_upload', 'upload', {}, { theme: 'dark' });
    await view
      .locator('input[type="file"]')
      .first()
      .setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
    await expect(view.getByRole('alert').first()).toContainText(
      'Only images (JPEG, PNG, WebP, GIF, AVIF, TIFF, HEIC, SVG) and videos (MP4, WebM, MOV)',
    );
    await expect(view.locator('.uppy-Dashboard-Item')).toHaveCount(0);
    await view.locator('input[type="file"]').first().setInputFiles([JPEG, WEBM]);
    await expect(view.locator('.uppy-Dashboard-Item')).toHaveCount(2);
    await expect(view.locator('.uppy-Dashboard-Item img').first()).toHaveAttribute('src', /^data:image\/jpeg;base64,/);
    await atelier.screenshot('upload-dark');
    await view.locator('.uppy-StatusBar-actionBtn--upload').click();
    await expect(view.getByTestId('uploaded-item')).toHaveCount(2, { timeout: 60_000 }); // renditions of a 24 MP JPEG on a busy machine
    const videos = await atelier.client.call('svc_asset_library', 'search', { theme_id: atelier.server.tenant.theme_id, kind: 'video' });
    expect(videos.structured.assets).toEqual([
      expect.objectContaining({ name: 'canvas-clip.webm', kind: 'video', format: 'webm', width: 320, height: 180 }),
    ]);
  });

  test('takes files dropped onto the dashboard', async ({ atelier, page }) => {
    const { view } = await atelier.open('svc_asset_upload', 'upload', {});
    await expect(view.locator('.uppy-Dashboard-inner')).toBeVisible();
    const frame = page.frame({ name: 'mcp-app' })!;
    // A real drag-and-drop payload, built inside the View's frame (research note §4.4 finding 4).
    const png = fs.readFileSync(path.join(DEMO_DIR, 'images/formats/density_plot.png')).toString('base64');
    const dataTransfer = await frame.evaluateHandle((b64) => {
      const dt = new DataTransfer();
      dt.items.add(new File([Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0))], 'density plot.png', { type: 'image/png' }));
      return dt;
    }, png);
    await view.locator('.uppy-Dashboard-inner').dispatchEvent('dragover', { dataTransfer });
    await view.locator('.uppy-Dashboard-inner').dispatchEvent('drop', { dataTransfer });
    await expect(view.locator('.uppy-Dashboard-Item')).toHaveCount(1);
    await view.locator('.uppy-StatusBar-actionBtn--upload').click();
    await expect(view.getByTestId('uploaded-item')).toHaveCount(1);
    await expect(view.getByTestId('uploaded-item')).toContainText('density plot.png');
    const lib = await atelier.client.call('svc_asset_library', 'search', { theme_id: atelier.server.tenant.theme_id });
    expect(lib.structured.assets).toEqual([expect.objectContaining({ name: 'density plot.png', format: 'png' })]);
  });

  test('a transfer that fails midway is retried from the chunks the server is missing', async ({ atelier, page }) => {
    const { view } = await atelier.open('svc_asset_upload', 'upload', {});
    // The host loses the call carrying chunk 2 once (as a dropped connection would).
    await page.evaluate(() => {
      const w = window as unknown as {
        __callTool: (p: { arguments?: { action?: string; args?: { index?: number } } }) => Promise<unknown>;
      };
      const forward = w.__callTool;
      let failed = false;
      w.__callTool = async (p) => {
        if (!failed && p.arguments?.action === 'chunk' && p.arguments.args?.index === 2) {
          failed = true;
          throw new Error('connection reset');
        }
        return forward(p);
      };
    });
    await view
      .locator('input[type="file"]')
      .first()
      .setInputFiles(await noisePng());
    await view.locator('.uppy-StatusBar-actionBtn--upload').click();
    await expect(view.locator('.uppy-StatusBar-actionBtn--retry')).toBeVisible();
    expect(calls(await atelier.events(), 'complete')).toHaveLength(0);
    const lib = async (): Promise<number> =>
      (await atelier.client.call('svc_asset_library', 'search', { theme_id: atelier.server.tenant.theme_id })).structured.total as number;
    expect(await lib()).toBe(0);

    await view.locator('.uppy-StatusBar-actionBtn--retry').click();
    await expect(view.getByTestId('uploaded-item')).toHaveCount(1);
    const events = await atelier.events();
    const begins = calls(events, 'begin');
    expect(begins).toHaveLength(2);
    // Retry resumed the same session and sent only the chunks the server did not have.
    const sent = calls(events, 'chunk').map((c) => c.arguments.args.index);
    expect(sent).toEqual([0, 1, 2, 2, 3]);
    // One file, so calls are sequential: the result following each begin call is that begin's answer.
    const beginResults = events.flatMap((e, i) =>
      e.type === 'tools/call' && (e.params as ToolCall).arguments.action === 'begin'
        ? [
            events.slice(i + 1).find((r) => r.type === 'tools/call-result')?.params as {
              structuredContent: { resumed: boolean; upload_id: string; received_chunks: number[] };
            },
          ]
        : [],
    );
    expect(beginResults.map((r) => r.structuredContent.resumed)).toEqual([false, true]);
    expect(beginResults[1]!.structuredContent.received_chunks).toEqual([0, 1]);
    expect(new Set(beginResults.map((r) => r.structuredContent.upload_id)).size).toBe(1);
    expect(await lib()).toBe(1);
  });

  test('an upload cancelled mid-transfer leaves nothing behind', async ({ atelier, page }) => {
    const { view } = await atelier.open('svc_asset_upload', 'upload', {});
    // Hold every chunk after the first at the host, so the transfer is surely in flight when cancelled.
    await page.evaluate(() => {
      const w = window as unknown as {
        __callTool: (p: { arguments?: { action?: string; args?: { index?: number } } }) => Promise<unknown>;
        __release: () => void;
      };
      const forward = w.__callTool;
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      w.__release = release;
      w.__callTool = async (p) => {
        if (p.arguments?.action === 'chunk' && (p.arguments.args?.index ?? 0) >= 1) await gate;
        return forward(p);
      };
    });
    await view
      .locator('input[type="file"]')
      .first()
      .setInputFiles(await noisePng());
    await view.locator('.uppy-StatusBar-actionBtn--upload').click();
    await expect.poll(async () => calls(await atelier.events(), 'chunk').length).toBeGreaterThanOrEqual(2);
    await expect.poll(() => stagingEntries(atelier.server.config.dataDir).length).toBe(1);

    await view.getByRole('button', { name: 'Cancel' }).first().click();
    await expect.poll(async () => calls(await atelier.events(), 'abort').length).toBe(1);
    await page.evaluate(() => (window as unknown as { __release: () => void }).__release());

    await expect.poll(() => stagingEntries(atelier.server.config.dataDir)).toEqual([]);
    const abort = calls(await atelier.events(), 'abort')[0]!;
    const status = await atelier.client.call('svc_asset_upload_app', 'status', { upload_id: abort.arguments.args.upload_id });
    expect(status.structured).toMatchObject({ status: 'aborted', received_chunks: [], asset_id: null });
    const lib = await atelier.client.call('svc_asset_library', 'search', { theme_id: atelier.server.tenant.theme_id });
    expect(lib.structured.total).toBe(0);
    expect(calls(await atelier.events(), 'complete')).toHaveLength(0);
    expect((await atelier.events()).filter((e) => e.type === 'ui/message')).toHaveLength(0);
  });
});
