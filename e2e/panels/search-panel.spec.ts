import { expect, test } from './fixtures.ts';
import { waitForEnrichment } from '../mcp/enrichment-helpers.ts';
import { importNature, seedRows } from './seed.ts';

test('search panel: read-only results with query, filters, count, pagination state, data: previews and load more', async ({ atelier }) => {
  const { app, tenant } = atelier.server;
  const scope = { tenantId: tenant.tenant_id, workspaceId: tenant.workspace_id };
  const nature = await importNature(atelier.client, tenant.workspace_id);
  await seedRows(app, scope, 112, { prefix: 'harbour', templateIds: nature.map((n) => n.id) });

  const { view, result } = await atelier.open('svc_asset_library', 'search', {
    query: 'harbour',
    mode: 'filename',
    kind: 'image',
    theme_id: tenant.theme_id,
  });
  const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
  expect(text).toContain('need not wait');

  await expect(view.getByTestId('query')).toHaveText('Results for “harbour”');
  await expect(view.getByTestId('result-count')).toHaveText('112 results');
  await expect(view.getByTestId('asset-card')).toHaveCount(50);
  await expect(view.getByTestId('pagination')).toHaveText('Showing 50 of 112');
  await expect(view.getByTestId('active-filters')).toContainText('Images only');
  await expect(view.getByTestId('active-filters')).toContainText('In file names');
  // Previews arrive as data: URLs through the app-only thumbnails action (the sandbox CSP ignores the CDN origin).
  await expect(view.locator('[data-testid="asset-card"] img').first()).toHaveAttribute('src', /^data:image\/jpeg;base64,/);
  await expect(view.locator('[data-testid="asset-card"] img')).toHaveCount(50);
  await atelier.screenshot('search-results-light');

  await view.getByTestId('load-more').click();
  await expect(view.getByTestId('asset-card')).toHaveCount(100);
  await expect(view.getByTestId('pagination')).toHaveText('Showing 100 of 112');
  await view.getByTestId('load-more').click();
  await expect(view.getByTestId('asset-card')).toHaveCount(112);
  await expect(view.getByTestId('pagination')).toHaveText('Showing 112 of 112');
  await expect(view.getByTestId('load-more')).toHaveCount(0);
  // Every card is distinct and ordered by rank as the server returned them.
  const ids = await view.getByTestId('asset-card').evaluateAll((els) => els.map((e) => e.getAttribute('data-asset-id')));
  expect(new Set(ids).size).toBe(112);

  const calls = await atelier.events('tools/call');
  const searches = calls.filter((c) => (c.params as { name: string }).name === 'svc_asset_library');
  expect(searches).toHaveLength(2);
  for (const s of searches)
    expect((s.params as { arguments: { args: { cursor?: string; query?: string } } }).arguments.args).toMatchObject({
      query: 'harbour',
      cursor: expect.any(String),
    });
  expect(calls.some((c) => (c.params as { name: string }).name === 'svc_asset_panel')).toBe(true);
  // Read-only: it never messages the conversation or changes the model context.
  expect(await atelier.events('ui/message')).toEqual([]);
  expect(await atelier.events('ui/update-model-context')).toEqual([]);

  // Safe-area insets from the host pad the panel.
  await atelier.setContext({ safeAreaInsets: { top: 20, right: 0, bottom: 10, left: 4 } });
  await expect(view.locator('main')).toHaveCSS('padding-top', '32px');
  await expect(view.locator('main')).toHaveCSS('padding-left', '16px');
  await atelier.setContext({ safeAreaInsets: { top: 0, right: 0, bottom: 0, left: 0 } });
  await expect(view.locator('main')).toHaveCSS('padding-top', '12px');

  await atelier.setTheme('dark');
  await expect(view.locator('html')).toHaveAttribute('data-theme', 'dark');
  await expect(view.locator('body')).toHaveCSS('background-color', 'rgb(24, 24, 27)');
  await view.locator('main').evaluate(() => window.scrollTo(0, 0));
  await atelier.screenshot('search-results-dark');
});

test('search panel: a failed search shows the structured error, and teardown is answered', async ({ atelier }) => {
  const { tenant } = atelier.server;
  const { view, result } = await atelier.open('svc_asset_library', 'search', {
    query: 'x',
    cursor: 'not-a-cursor',
    theme_id: tenant.theme_id,
  });
  expect(result.isError).toBe(true);
  await expect(view.getByRole('alert')).toContainText('cursor');
  const r = await atelier.page.evaluate(() => window.__host.teardown());
  expect(r).toEqual({});
});

test('search panel marks hybrid hits found by meaning only', async ({ atelier }) => {
  const { tenant } = atelier.server;
  await importNature(atelier.client, tenant.workspace_id);
  await waitForEnrichment(atelier.client, tenant.theme_id);
  // "crag" is in no name, tag or alt text, nor a WordNet relative of any: the ridge is found by meaning only,
  // its name's "ridge" close to "crag" and the photo's text as a whole near it too
  const { view } = await atelier.open('svc_asset_library', 'search', { query: 'crag', theme_id: tenant.theme_id });
  const ridge = view.getByTestId('asset-card').filter({ hasText: 'tanners_ridge.jpg' });
  await expect(ridge.getByTestId('meaning-only')).toHaveText('related by meaning');
  // no card of this query matched by its words
  await expect(view.getByTestId('meaning-only')).toHaveCount(await view.getByTestId('asset-card').count());
});
