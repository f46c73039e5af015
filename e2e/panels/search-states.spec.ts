import { panelViolations } from './axe.ts';
import { expect, SHARED_LIBRARY, test } from './fixtures.ts';

// One server per worker. Tests that only read use its seeded library (SHARED_LIBRARY, 161 assets);
// the others get a tenant of their own with an empty library.
test.use({ isolated: false });

const UPLOAD_REQUEST = /open the upload panel/i;
/** Matches nothing in the shared library; "harbour" (1 of its 4 words) makes the harbour-* rows suggestions. */
const NO_MATCH = 'harbour basketball court volcano';
/** One match in the shared library, and near non-matches as suggestions. */
const FEW_MATCHES = 'prairie falcon cliff harbour';

test.describe('with the shared library', () => {
  test.use({ library: true });

  test('search panel: loading state until the result arrives, then results in human words; screenshots', async ({ atelier }) => {
    const { tenant } = atelier;

    const held = await atelier.open('svc_asset_library', 'search', { query: 'harbour', theme_id: tenant.theme_id }, { holdResult: true });
    await expect(held.view.getByTestId('pending')).toHaveText('Searching for “harbour”…');
    await expect(held.view.getByTestId('result-count')).toHaveCount(0);
    await expect(held.view.getByTestId('no-match')).toHaveCount(0);
    await atelier.screenshots('search-loading');
    await held.release();
    await expect(held.view.getByTestId('result-count')).toHaveText('14 results');
    await expect(held.view.getByTestId('pagination')).toHaveText('Showing 14 of 14');
    await expect(held.view.getByTestId('pending')).toHaveCount(0);
    // No developer wording anywhere.
    await expect(held.view.locator('main')).not.toContainText(/page of|≤|no filters|matched|hybrid|all loaded/);
    await atelier.screenshots('search-results');
  });

  test('search panel: a query nothing matches says "No match" with the next step; the suggestions stand apart, labelled, with their relevance, never counted', async ({
    atelier,
    page,
  }) => {
    const { tenant } = atelier;
    const { view, result } = await atelier.open('svc_asset_library', 'search', { query: NO_MATCH, theme_id: tenant.theme_id });
    const sc = result.structuredContent as {
      total: number;
      assets: unknown[];
      suggestions: { id: string; name: string; relevance: number }[];
    };
    expect(sc).toMatchObject({ total: 0, assets: [] });
    expect(sc.suggestions.length).toBeGreaterThan(0);
    const notice = view.getByTestId('no-match');
    await expect(notice.getByRole('heading')).toHaveText(`No match for “${NO_MATCH}”`);
    await expect(notice).toContainText(
      'Next step: the assistant can generate an image or import one from a link, or you can upload your own.',
    );
    // The header counts only matches: none.
    await expect(view.getByTestId('result-count')).toHaveText('No results');
    await expect(view.getByTestId('pagination')).toHaveText('');
    await expect(view.getByTestId('load-more')).toHaveCount(0);
    // No results grid at all; the suggestions are a labelled section of their own.
    await expect(view.getByRole('list', { name: 'Search results' })).toHaveCount(0);
    await expect(view.getByTestId('asset-card')).toHaveCount(0);
    const section = view.getByRole('region', { name: 'Not a match — the closest in your library' });
    await expect(section).toBeVisible();
    await expect(section).toHaveAttribute('data-testid', 'suggestions');
    await expect(section).toContainText(
      `These ${sc.suggestions.length} assets do not match “${NO_MATCH}” and are not counted in the results.`,
    );
    const items = section.getByTestId('suggestion');
    await expect(items).toHaveCount(sc.suggestions.length);
    expect(await items.evaluateAll((els) => els.map((e) => e.getAttribute('data-asset-id')))).toEqual(sc.suggestions.map((s) => s.id));
    // Relevance as a person reads it (harbour is 1 of the 4 words: 25%), and how it relates.
    expect(sc.suggestions[0]!.relevance).toBe(0.25);
    await expect(items.first().getByTestId('suggestion-relevance')).toHaveText('weakly related, 25%: shares some of your words');
    await expect(items.first()).toContainText(sc.suggestions[0]!.name);
    // Visibly different from a result: a dashed frame, small previews.
    expect(await section.evaluate((el) => getComputedStyle(el).borderTopStyle)).toBe('dashed');
    await expect(items.first().locator('img')).toBeVisible();
    expect(
      await items
        .first()
        .locator('img')
        .evaluate((el) => el.getBoundingClientRect().width),
    ).toBeLessThan(80);
    expect(await panelViolations(page)).toEqual([]);
    await atelier.screenshots('search-no-match');
    // The next step as an action: ask the assistant (ui/message) to generate, import or open the upload panel.
    await notice.getByTestId('ask-action').click();
    await expect(view.getByTestId('ask-requested')).toBeVisible();
    const msgs = await atelier.events('ui/message');
    expect(msgs).toHaveLength(1);
    expect(JSON.stringify(msgs[0]!.params)).toContain(NO_MATCH);
    expect(JSON.stringify(msgs[0]!.params)).toMatch(/svc_drafts asset_generate.*svc_asset_import.*svc_asset_upload upload/);
  });

  test('search panel: a query with one match shows it in the results and the suggestions apart, never counted', async ({ atelier }) => {
    const { tenant } = atelier;
    const { view, result } = await atelier.open('svc_asset_library', 'search', { query: FEW_MATCHES, theme_id: tenant.theme_id });
    const sc = result.structuredContent as { total: number; assets: { id: string }[]; suggestions: { id: string }[] };
    expect(sc.total).toBe(1);
    expect(sc.suggestions.length).toBeGreaterThan(0);
    await expect(view.getByTestId('result-count')).toHaveText('1 result');
    await expect(view.getByTestId('pagination')).toHaveText('Showing 1 of 1');
    await expect(view.getByTestId('no-match')).toHaveCount(0);
    const grid = view.getByRole('list', { name: 'Search results' });
    await expect(grid.getByTestId('asset-card')).toHaveCount(1);
    await expect(grid.getByTestId('asset-card')).toHaveAttribute('data-asset-id', sc.assets[0]!.id);
    const section = view.getByRole('region', { name: 'Not a match — the closest in your library' });
    await expect(section.getByTestId('suggestion')).toHaveCount(sc.suggestions.length);
    // Outside the results list, and not counted in it.
    expect(
      await grid.evaluate(
        (ul, ids) => ids.filter((id) => ul.querySelector(`[data-asset-id="${id}"]`)).length,
        sc.suggestions.map((x) => x.id),
      ),
    ).toBe(0);
    expect(await section.evaluate((el) => el.closest('[data-testid="results-scroll"]'))).toBeNull();
    await expect(section.getByTestId('suggestion-relevance').first()).toHaveText(/^somewhat related, 48%: /);
  });

  test('search panel in a host without ui/message: no match gives the next step as text; in a host without the MCP Apps extension results render the same', async ({
    atelier,
  }) => {
    const { tenant } = atelier;
    const { view } = await atelier.open('svc_asset_library', 'search', { query: NO_MATCH, theme_id: tenant.theme_id }, { noMessage: true });
    await expect(view.getByTestId('no-match')).toBeVisible();
    await expect(view.getByTestId('ask-action')).toHaveCount(0);
    await expect(view.getByTestId('ask-hint')).toHaveText('Ask the assistant to generate or import one, or to “open the upload panel”.');
    await expect(view.getByTestId('suggestions')).toBeVisible();
    await atelier.screenshots('search-no-match-no-message');
    expect(await atelier.events('ui/message')).toEqual([]);

    const plain = await atelier.open(
      'svc_asset_library',
      'search',
      { query: 'harbour', theme_id: tenant.theme_id },
      { noUiExtension: true },
    );
    await expect(plain.view.getByTestId('result-count')).toHaveText('14 results');
    await expect(plain.view.getByTestId('asset-card')).toHaveCount(14);
    await expect(plain.view.getByTestId('pending')).toHaveCount(0);
    await atelier.screenshots('search-no-extension');
  });

  test('search panel: server stopped → "can’t be reached" with Retry; restarted → "connection expired" with Retry; Retry then loads', async ({
    atelier,
    page,
  }) => {
    const { tenant } = atelier;
    const { view } = await atelier.open('svc_asset_library', 'search', { theme_id: tenant.theme_id, limit: 20 });
    await expect(view.getByTestId('result-count')).toHaveText(`${SHARED_LIBRARY.total} assets`);
    await expect(view.getByTestId('asset-card')).toHaveCount(20);

    await atelier.stopServer();
    await view.getByTestId('load-more').click();
    const err = view.getByTestId('error');
    await expect(err).toHaveAttribute('data-kind', 'unreachable');
    await expect(err.locator('.notice-title')).toHaveText('Atelier can’t be reached — the server may have stopped or the network dropped.');
    await expect(err.locator('.notice-title')).not.toContainText('MCP error');
    await expect(err.locator('.notice-details code')).toBeHidden(); // the raw cause waits under "Details"
    await err.locator('summary').click();
    await expect(err.locator('.notice-details code')).toContainText('fetch failed');
    await err.locator('summary').click();
    await expect(view.getByTestId('asset-card')).toHaveCount(20); // what was shown stays
    await expect(view.getByTestId('load-more')).toBeVisible();
    expect(await panelViolations(page)).toEqual([]);
    await atelier.screenshots('search-server-stopped');
    await view.getByTestId('retry').click(); // still down: the same honest error
    await expect(err).toHaveAttribute('data-kind', 'unreachable');

    await atelier.startServer();
    await view.getByTestId('retry').click();
    await expect(err).toHaveAttribute('data-kind', 'session');
    await expect(err.locator('.notice-title')).toHaveText(
      'The connection to Atelier expired — the server restarted or the session timed out.',
    );
    await expect(err.locator('.notice-title')).not.toContainText('unknown or expired session');
    await atelier.screenshots('search-session-expired');
    await view.getByTestId('retry').click();
    await expect(view.getByTestId('error')).toHaveCount(0);
    await expect(view.getByTestId('asset-card')).toHaveCount(40);
    await expect(view.getByTestId('pagination')).toHaveText(`Showing 40 of ${SHARED_LIBRARY.total}`);
  });

  test('search panel: stays within the host height at 420 px (list scrolls inside, Load more in view); fixed heights are filled', async ({
    atelier,
  }) => {
    const { tenant } = atelier;
    const { view, page } = {
      ...(await atelier.open(
        'svc_asset_library',
        'search',
        { query: 'pier', mode: 'filename', theme_id: tenant.theme_id, limit: 10 },
        { widthPx: 420, containerDimensions: { maxHeight: 600 } },
      )),
      page: atelier.page,
    };
    await expect(view.getByTestId('result-count')).toHaveText('22 results');
    await expect(view.getByTestId('asset-card')).toHaveCount(10);
    const frameHeight = async (): Promise<number> => (await page.locator('#app-frame').boundingBox())!.height;
    const mainHeight = async (): Promise<number> => view.locator('main').evaluate((m) => m.getBoundingClientRect().height);
    const loadMoreInView = async (): Promise<boolean> =>
      view.getByTestId('load-more').evaluate((b) => {
        const r = b.getBoundingClientRect();
        return r.top >= 0 && r.bottom <= window.innerHeight;
      });
    for (const step of [20, 22]) {
      await expect.poll(mainHeight).toBeLessThanOrEqual(600);
      expect(await frameHeight()).toBeLessThanOrEqual(604); // 600 + the host's 2 px slack + 2 px border
      if (step === 22) break;
      expect(await loadMoreInView()).toBe(true);
      await view.getByTestId('load-more').click();
      await expect(view.getByTestId('asset-card')).toHaveCount(step);
    }
    await view.getByTestId('load-more').click();
    await expect(view.getByTestId('asset-card')).toHaveCount(22);
    await expect(view.getByTestId('pagination')).toHaveText('Showing 22 of 22');
    await expect(view.getByTestId('load-more')).toHaveCount(0);
    // The results list is the scrolling part: taller inside than its box, and reachable by keyboard.
    const scroll = view.getByTestId('results-scroll');
    expect(await scroll.evaluate((el) => el.scrollHeight > el.clientHeight + 100)).toBe(true);
    await expect(scroll).toHaveAttribute('tabindex', '0');
    expect(await mainHeight()).toBeLessThanOrEqual(600);
    // No host limit at all: the chat-column cap still applies (640 px), not 2,858 px of results.
    await atelier.setContext({ containerDimensions: {} });
    await expect.poll(mainHeight).toBeLessThanOrEqual(640);
    // A fixed container height is filled exactly.
    await atelier.setContext({ containerDimensions: { height: 480 } });
    await expect.poll(mainHeight).toBe(480);
    await atelier.setContext({ containerDimensions: { maxHeight: 900 } });
    await atelier.screenshots('search-scroll-22');
  });
});

test('search panel: an empty library says so and offers the upload action (ui/message)', async ({ atelier, page }) => {
  const { view } = await atelier.open('svc_asset_library', 'search', { theme_id: atelier.tenant.theme_id });
  await expect(view.getByTestId('empty-library')).toContainText('Your library is empty — upload or import');
  await expect(view.getByTestId('result-count')).toHaveText('No assets');
  await expect(view.getByTestId('no-match')).toHaveCount(0);
  expect(await panelViolations(page)).toEqual([]);
  await atelier.screenshots('search-empty-library');
  await view.getByTestId('upload-action').click();
  await expect(view.getByTestId('upload-requested')).toBeVisible();
  const msgs = await atelier.events('ui/message');
  expect(msgs).toHaveLength(1);
  expect(JSON.stringify(msgs[0]!.params)).toMatch(UPLOAD_REQUEST);
});

test('search panel: a tool error shows a sentence and the field, not JSON; no Retry for a request only the assistant can fix', async ({
  atelier,
  page,
}) => {
  const { view, result } = await atelier.open('svc_asset_library', 'search', { query: 'falcon' });
  expect(result.isError).toBe(true);
  const err = view.getByTestId('error');
  await expect(err).toBeVisible();
  await expect(err.locator('.notice-title')).toContainText(/^The request can’t be run as asked: theme_id is required/);
  await expect(view.getByTestId('error-field')).toHaveText('theme_id');
  await expect(err.locator('.notice-title')).not.toContainText('{');
  await expect(err).toContainText('The assistant got this error too');
  await expect(view.getByTestId('retry')).toHaveCount(0);
  await expect(view.getByTestId('pending')).toHaveCount(0);
  expect(await panelViolations(page)).toEqual([]);
  await atelier.screenshots('search-tool-error');
});
