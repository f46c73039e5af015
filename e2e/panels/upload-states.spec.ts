import path from 'node:path';
import { DEMO_DIR, demoFile } from '../mcp/harness.ts';
import { panelViolations } from './axe.ts';
import { expect, test } from './fixtures.ts';

// One server for the file; each test has its own tenant. (upload.spec.ts keeps a server per test: it counts staging files.)
test.use({ isolated: false });

const FIR = path.join(DEMO_DIR, 'images/nature/silver_fir.jpg');
const CYCLAMEN = path.join(DEMO_DIR, 'images/nature/cyclamen_persicum.jpg');

test('upload panel: a main landmark, a visible focus ring on "browse files", a file already in the library says so, CDN URLs never split inside the hash', async ({
  atelier,
  page,
}) => {
  const { tenant } = atelier;
  const before = await atelier.client.call('svc_asset_import', 'import', {
    data: demoFile('images/nature/silver_fir.jpg').toString('base64'),
    mime_type: 'image/jpeg',
    filename: 'silver_fir.jpg',
    workspace_id: tenant.workspace_id,
  });
  expect(before.isError).toBe(false);
  const { view } = await atelier.open('svc_asset_upload', 'upload', {});
  await expect(view.locator('main')).toHaveCount(1);
  await expect(view.getByRole('main')).toContainText('Upload images or videos');

  // Keyboard focus on "browse files" is a ring, not only an underline.
  await view.locator('h1').click();
  const browse = view.locator('.uppy-Dashboard-browse').first();
  for (let i = 0; i < 6 && !(await browse.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press('Tab');
  await expect(browse).toBeFocused();
  expect(
    await browse.evaluate((el) => {
      const s = getComputedStyle(el);
      return `${s.outlineStyle} ${s.outlineWidth}`;
    }),
  ).toBe('solid 2px');

  await view.locator('input[type="file"]').first().setInputFiles([FIR, CYCLAMEN]);
  await view.locator('.uppy-StatusBar-actionBtn--upload').click();
  await expect(view.getByTestId('uploaded-item')).toHaveCount(2);
  const fir = view.getByTestId('uploaded-item').filter({ hasText: 'silver_fir.jpg' });
  const cyclamen = view.getByTestId('uploaded-item').filter({ hasText: 'cyclamen_persicum.jpg' });
  await expect(fir).toHaveAttribute('data-asset-id', before.structured.asset_id as string);
  await expect(fir.getByTestId('already-in-library')).toContainText('Already in your library');
  await expect(cyclamen.getByTestId('already-in-library')).toHaveCount(0);
  // The agent is told too.
  const msg = (await atelier.events('ui/message')).at(-1)!.params as { content: { text: string }[] };
  expect(msg.content[0]!.text).toMatch(/silver_fir\.jpg .*\(already in the library\)/);

  // The URL: full in href and tooltip; shown with the hash shortened; every path segment on one line.
  const link = fir.getByTestId('cdn-url');
  const url = before.structured.url as string;
  await expect(link).toHaveAttribute('href', url);
  await expect(link).toHaveAttribute('title', url);
  // A short content address (/a/<22 characters>.<ext>) is shown whole; a legacy /cdn/<sha256> name is cut mid-hash.
  const u = new URL(url);
  const sha = /([0-9a-f]{64})/.exec(u.pathname)?.[1];
  await expect(link).toHaveText(
    sha ? `${u.host}${u.pathname.replace(sha, `${sha.slice(0, 8)}…${sha.slice(-6)}`)}` : `${u.host}${u.pathname}`,
  );
  for (const width of [420, 1200]) {
    await page.evaluate((w) => window.__host.resize(w, { maxHeight: 4000 }), width);
    const lines = await link.locator('.seg').evaluateAll((segs) => segs.map((s) => s.getClientRects().length));
    expect(lines.every((n) => n === 1)).toBe(true);
  }
  await atelier.screenshots('upload-done-with-duplicate');
});

test('upload panel: server stopped mid-session → a sentence (not "fetch failed") and Retry; after the restart Retry finishes the upload', async ({
  atelier,
}) => {
  const { view } = await atelier.open('svc_asset_upload', 'upload', {});
  await view.locator('input[type="file"]').first().setInputFiles(CYCLAMEN);
  await atelier.stopServer();
  await view.locator('.uppy-StatusBar-actionBtn--upload').click();
  const retry = view.locator('.uppy-StatusBar-actionBtn--retry');
  await expect(retry).toBeVisible();
  // Uppy shows the file's error behind its "?" button (aria-label, tooltip).
  const why = view.locator('.uppy-Dashboard-Item-errorDetails');
  await expect(why).toHaveAttribute('aria-label', 'Atelier can’t be reached — the server may have stopped or the network dropped.');
  await atelier.screenshots('upload-server-stopped');
  await atelier.startServer();
  await retry.click();
  // The first call after the restart meets the expired session (the host reconnects); one more Retry goes through.
  await expect(view.getByTestId('uploaded-item').or(retry)).toBeVisible();
  if (await retry.isVisible()) {
    await expect(why).toHaveAttribute('aria-label', /^The connection to Atelier expired/);
    await retry.click();
  }
  await expect(view.getByTestId('uploaded-item')).toHaveCount(1);
  await expect(view.getByTestId('uploaded-item')).toContainText('cyclamen_persicum.jpg');
});

test('upload panel: "Waiting for the upload request…" until the result arrives; a failed upload call shows the error with its field, not the Dashboard', async ({
  atelier,
  page,
}) => {
  const held = await atelier.open('svc_asset_upload', 'upload', {}, { holdResult: true });
  await expect(held.view.getByText('Waiting for the upload request…')).toBeVisible();
  await expect(held.view.locator('.uppy-Dashboard')).toHaveCount(0);
  await atelier.screenshots('upload-loading');
  await held.release();
  await expect(held.view.locator('.uppy-Dashboard')).toBeVisible();
  await expect(held.view.getByText('Waiting for the upload request…')).toHaveCount(0);

  const { view, result } = await atelier.open('svc_asset_upload', 'upload', { workspace_id: 'not-a-workspace' });
  expect(result.isError).toBe(true);
  const err = view.getByTestId('error');
  await expect(err.locator('.notice-title')).toContainText(/^The request can’t be run as asked/);
  await expect(view.getByTestId('error-field')).toHaveText('workspace_id');
  await expect(err.locator('.notice-title')).not.toContainText('{');
  await expect(view.locator('.uppy-Dashboard')).toHaveCount(0);
  expect(await panelViolations(page)).toEqual([]);
  await atelier.screenshots('upload-tool-error');
});

test('upload panel in a host without ui/message: the file is added and the panel says the assistant has not been told, with the text to paste', async ({
  atelier,
  page,
}) => {
  const { view } = await atelier.open('svc_asset_upload', 'upload', {}, { noMessage: true });
  await view.locator('input[type="file"]').first().setInputFiles(CYCLAMEN);
  await view.locator('.uppy-StatusBar-actionBtn--upload').click();
  await expect(view.getByTestId('uploaded-item')).toHaveCount(1);
  await expect(view.getByTestId('uploaded-head')).toHaveText('Added to your library (1)');
  await expect(view.getByTestId('handoff-note')).toHaveText(
    'This host does not let panels send messages, so the assistant has not been told. Tell the assistant you are done, or paste this:',
  );
  await expect(view.getByTestId('handoff')).toContainText('cyclamen_persicum.jpg');
  expect(await atelier.events('ui/message')).toEqual([]);
  expect(await atelier.events('ui/update-model-context')).toHaveLength(1);
  expect(await panelViolations(page)).toEqual([]);
  await atelier.screenshots('upload-no-message');
});

test('upload panel in a host that does not declare the MCP Apps extension: the panel still uploads, and says it was sent', async ({
  atelier,
}) => {
  const { view, result } = await atelier.open('svc_asset_upload', 'upload', {}, { noUiExtension: true });
  expect(result.structuredContent).toMatchObject({ status: 'no_panel', panel_available: false });
  await expect(view.locator('.uppy-Dashboard')).toBeVisible();
  await atelier.screenshots('upload-no-extension');
  await view.locator('input[type="file"]').first().setInputFiles(FIR);
  await view.locator('.uppy-StatusBar-actionBtn--upload').click();
  await expect(view.getByTestId('uploaded-item')).toHaveCount(1);
  await expect(view.getByTestId('uploaded-head')).toHaveText('Sent to the conversation (1)');
  expect(await atelier.events('ui/message')).toHaveLength(1);
});
