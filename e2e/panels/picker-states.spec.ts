import type { FrameLocator } from '@playwright/test';
import { panelViolations } from './axe.ts';
import { expect, SHARED_LIBRARY, test } from './fixtures.ts';

// One server per worker. Tests that only read use its seeded library (SHARED_LIBRARY, 161 assets);
// the others get a tenant of their own with an empty library.
test.use({ isolated: false });
const ALL = `${SHARED_LIBRARY.total} assets`;
/** Matches nothing in the shared library; "harbour" (1 of its 4 words) makes the harbour-* rows suggestions. */
const NO_MATCH = 'harbour basketball court volcano';

const focused = (view: FrameLocator) => view.locator('[data-testid="picker-cell"][tabindex="0"]');
type Call = { name: string; arguments: { action: string; args: Record<string, unknown> } };

test.describe('with the shared library', () => {
  test.use({ library: true });

  test('picker: "Loading…" while the select call runs, never "No assets match"; then the grid', async ({ atelier }) => {
    const { tenant } = atelier;
    const held = await atelier.open('svc_asset_select', 'select', { theme_id: tenant.theme_id }, { holdResult: true });
    await expect(held.view.getByTestId('loading')).toHaveText('Loading assets…');
    await expect(held.view.getByTestId('match-count')).toHaveText('');
    await expect(held.view.getByTestId('no-match')).toHaveCount(0);
    await expect(held.view.getByText(/No assets match|No match/)).toHaveCount(0);
    await atelier.screenshots('picker-loading');
    await held.release();
    await expect(held.view.getByTestId('match-count')).toHaveText(ALL);
    await expect(held.view.getByTestId('loading')).toHaveCount(0);
    await expect(held.view.locator('[data-testid="picker-cell"][data-index="0"]')).toHaveAttribute('data-asset-id', /.+/);
  });

  test('picker: a query nothing matches says "No match" with the next step; suggestions apart, labelled, not counted, and still choosable', async ({
    atelier,
    page,
  }) => {
    const { tenant } = atelier;
    const { view, result } = await atelier.open('svc_asset_select', 'select', { query: NO_MATCH, theme_id: tenant.theme_id });
    const sc = result.structuredContent as {
      candidates: unknown[];
      total: number;
      page: { total: number; assets: unknown[]; suggestions: { id: string; name: string }[] };
    };
    expect(sc).toMatchObject({ candidates: [], total: 0, page: { total: 0, assets: [] } });
    expect(sc.page.suggestions.length).toBeGreaterThan(0);
    await expect(view.getByTestId('match-count')).toHaveText('No matches');
    await expect(view.getByTestId('category-all')).toHaveText('All 0'); // the facet counts agree with the header
    const notice = view.getByTestId('no-match');
    await expect(notice.getByRole('heading')).toHaveText(`No match for “${NO_MATCH}”`);
    await expect(notice).toContainText(
      'Next step: the assistant can generate an image or import one from a link, or you can upload your own. Or try other words, another category or shape.',
    );
    await expect(view.getByTestId('picker-grid')).toHaveCount(0);
    await expect(view.getByTestId('picker-cell')).toHaveCount(0);
    const section = view.getByRole('region', { name: 'Not a match — the closest in your library' });
    await expect(section).toContainText(
      `These ${sc.page.suggestions.length} assets do not match “${NO_MATCH}” and are not counted in the results; you can still choose one.`,
    );
    const items = section.getByTestId('suggestion');
    await expect(items).toHaveCount(sc.page.suggestions.length);
    expect(await items.evaluateAll((els) => els.map((e) => e.getAttribute('data-asset-id')))).toEqual(sc.page.suggestions.map((x) => x.id));
    await expect(items.first().getByTestId('suggestion-relevance')).toHaveText('weakly related, 25%: shares some of your words');
    // A suggestion can still be chosen; it is numbered like a grid selection and the header count stays "No matches".
    const second = sc.page.suggestions[1]!;
    await items
      .nth(1)
      .getByRole('button', { name: `Choose ${second.name}` })
      .click();
    await expect(items.nth(1).getByTestId('suggestion-pick')).toHaveAttribute('aria-pressed', 'true');
    await expect(items.nth(1).getByTestId('selection-badge')).toHaveText('Selected as number 1');
    await expect(view.getByTestId('selection-summary')).toHaveText(`1 asset selected: 1. ${second.name}`);
    await expect(view.getByTestId('match-count')).toHaveText('No matches');
    expect(await panelViolations(page)).toEqual([]);
    await atelier.screenshots('picker-no-match');

    // Another query typed in the picker that matches nothing: its own suggestions; the choice so far stays.
    const search = view.getByTestId('picker-search');
    await search.fill('quay piano violin trumpet');
    await search.press('Enter');
    await expect(notice.getByRole('heading')).toHaveText('No match for “quay piano violin trumpet”');
    await expect(items.first()).toContainText(/^quay-\d{5}\.jpg/);
    await expect(view.getByTestId('category-all')).toHaveText('All 0');
    await expect(view.getByTestId('selection-summary')).toHaveText(`1 asset selected: 1. ${second.name}`);
    await items.first().getByTestId('suggestion-pick').click();
    await view.getByTestId('use-selected').click();
    await expect(view.getByTestId('confirmed-list').locator('li')).toHaveCount(2);
    await expect(view.getByTestId('confirmed-list').locator('li').first()).toContainText(second.name);
  });

  test('picker: a query with one match shows it in the grid and the suggestions apart; header and category counts count the match only', async ({
    atelier,
  }) => {
    const { tenant } = atelier;
    const { view, result } = await atelier.open('svc_asset_select', 'select', {
      query: 'prairie falcon cliff harbour',
      theme_id: tenant.theme_id,
    });
    const sc = result.structuredContent as { page: { total: number; assets: { id: string }[]; suggestions: { id: string }[] } };
    expect(sc.page.total).toBe(1);
    expect(sc.page.suggestions.length).toBeGreaterThan(0);
    await expect(view.getByTestId('match-count')).toHaveText('1 asset');
    await expect(view.getByTestId('category-all')).toHaveText('All 1');
    await expect(view.getByTestId('picker-cell')).toHaveCount(1);
    await expect(view.getByTestId('picker-cell')).toHaveAttribute('data-asset-id', sc.page.assets[0]!.id);
    await expect(view.getByTestId('no-match')).toHaveCount(0);
    const section = view.getByRole('region', { name: 'Not a match — the closest in your library' });
    await expect(section.getByTestId('suggestion')).toHaveCount(sc.page.suggestions.length);
    expect(
      await view.getByTestId('picker-grid').evaluate(
        (g, ids) => ids.filter((id) => g.querySelector(`[data-asset-id="${id}"]`)).length,
        sc.page.suggestions.map((x) => x.id),
      ),
    ).toBe(0);
  });

  test('picker: facet counts follow the agent\'s search mode, so they agree with the header (no "All 153" above no match)', async ({
    atelier,
  }) => {
    const { tenant } = atelier;
    // "sample" is in every seeded row's alt text but in no file name.
    const { view } = await atelier.open('svc_asset_select', 'select', { query: 'sample', mode: 'filename', theme_id: tenant.theme_id });
    await expect(view.getByTestId('match-count')).toHaveText('No matches');
    await expect(view.getByTestId('category-all')).toHaveText('All 0');
    await expect(view.getByTestId('no-match')).toBeVisible();
    await expect(view.getByTestId('suggestions')).toHaveCount(0); // nothing near either: no empty section
    const facets = (await atelier.events('tools/call')).map((e) => e.params as Call).filter((p) => p.arguments.action === 'facets');
    expect(facets.at(-1)!.arguments.args).toMatchObject({ query: 'sample', mode: 'filename' });
  });

  test('picker: server stopped → a search says so with Retry; after a restart the expired session says so; Retry then searches', async ({
    atelier,
  }) => {
    const { tenant } = atelier;
    const { view } = await atelier.open('svc_asset_select', 'select', { theme_id: tenant.theme_id });
    await expect(view.getByTestId('match-count')).toHaveText(ALL);
    await atelier.stopServer();
    const search = view.getByTestId('picker-search');
    await search.fill('falcon');
    await search.press('Enter');
    const err = view.getByTestId('error');
    await expect(err).toHaveAttribute('data-kind', 'unreachable');
    await expect(err.locator('.notice-title')).toHaveText('Atelier can’t be reached — the server may have stopped or the network dropped.');
    await expect(view.getByTestId('no-match')).toHaveCount(0);
    await atelier.screenshots('picker-server-stopped');
    await atelier.startServer();
    await view.getByTestId('retry').click();
    await expect(err).toHaveAttribute('data-kind', 'session');
    await expect(err.locator('.notice-title')).toHaveText(
      'The connection to Atelier expired — the server restarted or the session timed out.',
    );
    await atelier.screenshots('picker-session-expired');
    await view.getByTestId('retry').click();
    await expect(view.getByTestId('error')).toHaveCount(0);
    await expect(view.getByTestId('match-count')).not.toHaveText(ALL);
    await expect(view.locator('[data-testid="picker-cell"][data-index="0"]')).toContainText('prairie_falcon.jpg');
    await expect(view.getByTestId('facets')).toBeVisible(); // the category counts that failed meanwhile came back too
  });

  test('picker in a host that does not declare the MCP Apps extension: renders the candidates the result carried and confirms', async ({
    atelier,
  }) => {
    const { tenant } = atelier;
    const { view, result } = await atelier.open('svc_asset_select', 'select', { theme_id: tenant.theme_id }, { noUiExtension: true });
    const sc = result.structuredContent as { picker_id: string; status: string; delivery: string; page: unknown; candidates: unknown[] };
    expect(sc).toMatchObject({ delivery: 'text', status: 'candidates', page: null });
    expect(sc.candidates.length).toBeGreaterThan(0);
    await expect(view.getByTestId('match-count')).toHaveText(ALL);
    await expect(view.locator('[data-testid="picker-cell"][data-index="1"]')).toHaveAttribute('data-asset-id', /.+/);
    await expect(view.getByTestId('loading')).toHaveCount(0);
    await atelier.screenshots('picker-no-extension');
    await view.locator('[data-testid="picker-cell"][data-index="1"]').click();
    await view.locator('[data-testid="picker-cell"][data-index="0"]').click();
    await view.getByTestId('use-selected').click();
    await expect(view.getByTestId('confirmed')).toHaveAttribute('data-handoff', 'sent');
    const state = await atelier.client.call('svc_asset_select', 'get_selection', { picker_id: sc.picker_id });
    expect(state.structured).toMatchObject({ status: 'confirmed' });
    expect((state.structured.selection as unknown[]).length).toBe(2);
  });

  test('picker in a host without ui/message: the choice is saved and the panel says the assistant has not been told', async ({
    atelier,
    page,
  }) => {
    const { tenant } = atelier;
    const { view, result } = await atelier.open('svc_asset_select', 'select', { theme_id: tenant.theme_id }, { noMessage: true });
    const pickerId = (result.structuredContent as { picker_id: string }).picker_id;
    await view.locator('[data-testid="picker-cell"][data-index="2"]').click();
    await view.getByTestId('use-selected').click();
    const done = view.getByTestId('confirmed');
    await expect(done).toHaveAttribute('data-handoff', 'not_offered');
    await expect(done.locator('h1')).toHaveText('Selection saved');
    await expect(view.getByTestId('confirmed-summary')).toHaveText('Your choice of 1 asset is saved, in this order:');
    await expect(done).not.toContainText(/Selection sent|received/);
    await expect(view.getByTestId('handoff-note')).toContainText('This host does not let panels send messages.');
    await expect(view.getByTestId('handoff-note')).toContainText(pickerId);
    expect(await atelier.events('ui/message')).toEqual([]);
    expect(await atelier.events('ui/update-model-context')).toHaveLength(1);
    expect(await panelViolations(page)).toEqual([]);
    await atelier.screenshots('picker-no-message');
  });

  test('picker: focus and selection differ by shape in both themes; few Tab stops before the grid; truncated names have the full name as tooltip', async ({
    atelier,
    page,
  }) => {
    const { tenant } = atelier;
    const { view } = await atelier.open('svc_asset_select', 'select', { theme_id: tenant.theme_id });
    await expect(view.getByTestId('match-count')).toHaveText(ALL);
    // Tab from the top of the panel into the grid: search box, Search, category group, shape group, then a cell.
    await view.locator('h1').click();
    const stops: string[] = [];
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      const f = await view
        .locator(':focus')
        .evaluate(
          (el) =>
            el.getAttribute('data-testid') ??
            `${el.tagName.toLowerCase()}${(el as HTMLInputElement).name ? `[${(el as HTMLInputElement).name}]` : ''}`,
        );
      stops.push(f);
      if (f === 'picker-cell') break;
    }
    expect(stops).toEqual(['picker-search', 'button', 'input[category]', 'input[shape]', 'picker-cell']);
    // Select the first cell, move focus to the second: one is selected, the other focused, and they look different.
    await focused(view).press(' ');
    await focused(view).press('ArrowRight');
    const sel = view.locator('[data-testid="picker-cell"][data-index="0"]');
    const foc = view.locator('[data-testid="picker-cell"][data-index="1"]');
    await expect(foc).toBeFocused();
    const look = (l: typeof sel) =>
      l.evaluate((el) => {
        const s = getComputedStyle(el);
        const after = getComputedStyle(el, '::after');
        return {
          border: s.borderTopWidth,
          outline: s.outlineStyle === 'none' ? 'none' : `${s.outlineWidth} ${s.outlineStyle}`,
          marker: after.content !== 'none' && after.content !== '',
          badge: !!el.querySelector('[data-testid="selection-badge"]'),
        };
      });
    for (const theme of ['light', 'dark'] as const) {
      await atelier.setTheme(theme);
      await expect(view.locator('html')).toHaveAttribute('data-theme', theme);
      expect(await look(sel)).toEqual({ border: '3px', outline: 'none', marker: false, badge: true });
      expect(await look(foc)).toMatchObject({ outline: '3px solid', marker: true, badge: false });
    }
    await atelier.setTheme('light');
    await atelier.screenshots('picker-focus-and-selection');
    await view.getByTestId('picker-search').fill('descriptive');
    await view.getByTestId('picker-search').press('Enter');
    await expect(view.getByTestId('match-count')).toHaveText('1 asset');
    const longName = view.locator('[data-testid="picker-cell"] .cell-name');
    await expect(longName).toHaveAttribute('title', 'a-very-long-descriptive-file-name-for-the-hero-image-00001.jpg');
    expect(await longName.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true); // it is truncated on screen
  });

  test('picker: within a short host height at 420 px the grid shrinks so "Use selected" stays in view', async ({ atelier }) => {
    const { view } = await atelier.open(
      'svc_asset_select',
      'select',
      { theme_id: atelier.tenant.theme_id },
      { widthPx: 420, containerDimensions: { maxHeight: 620 } },
    );
    await expect(view.getByTestId('match-count')).toHaveText(ALL);
    await expect.poll(() => view.locator('main').evaluate((m) => m.getBoundingClientRect().height)).toBeLessThanOrEqual(620);
    expect(await view.getByTestId('use-selected').evaluate((b) => b.getBoundingClientRect().bottom <= window.innerHeight)).toBe(true);
    expect(await view.getByTestId('picker-grid').evaluate((g) => g.getBoundingClientRect().height)).toBeGreaterThanOrEqual(160);
  });

  test.describe('on a 2× screen', () => {
    test.use({ deviceScaleFactor: 2 });
    test('picker and search previews are chosen by device pixel ratio (larger renditions than the 320 px thumbnail)', async ({
      atelier,
    }) => {
      const { tenant } = atelier;
      const { view } = await atelier.open('svc_asset_select', 'select', { theme_id: tenant.theme_id }, { widthPx: 420 });
      await expect(view.locator('[data-testid="picker-cell"] img').first()).toBeVisible();
      const thumbCalls = async (): Promise<number[]> =>
        (await atelier.events('tools/call'))
          .map((e) => e.params as Call)
          .filter((p) => p.arguments.action === 'thumbnails')
          .map((p) => (p.arguments.args.size_px as number | undefined) ?? 0);
      const cellPx = await view
        .locator('[data-testid="picker-cell"] img')
        .first()
        .evaluate((el) => Math.max(el.clientWidth, el.clientHeight));
      expect(Math.max(...(await thumbCalls()))).toBeGreaterThanOrEqual(cellPx * 2);
      // The falcon (800×533) now comes as a WebP rendition whose shorter edge covers the cell at 2×.
      const falcon = view.locator('[data-testid="picker-cell"]', { hasText: 'prairie_falcon.jpg' }).locator('img');
      await expect(falcon).toHaveAttribute('src', /^data:image\/webp;base64,/);
      expect(
        await falcon.evaluate((el) => Math.min((el as HTMLImageElement).naturalWidth, (el as HTMLImageElement).naturalHeight)),
      ).toBeGreaterThanOrEqual(cellPx * 2 > 533 ? 533 : cellPx * 2);

      const search = await atelier.open('svc_asset_library', 'search', { theme_id: tenant.theme_id, limit: 10 }, { widthPx: 420 });
      const card = search.view.locator('[data-testid="asset-card"]', { hasText: 'prairie_falcon.jpg' }).locator('img');
      await expect(card).toHaveAttribute('src', /^data:image\/webp;base64,/);
      const cardPx = await card.evaluate((el) => el.clientWidth);
      expect(await card.evaluate((el) => (el as HTMLImageElement).naturalWidth)).toBeGreaterThanOrEqual(Math.min(800, cardPx * 2));
    });
  });
});

test('picker: an empty library says "Your library is empty — upload or import" and the upload action asks the assistant', async ({
  atelier,
  page,
}) => {
  const { view } = await atelier.open('svc_asset_select', 'select', { theme_id: atelier.tenant.theme_id });
  await expect(view.getByTestId('empty-library')).toContainText('Your library is empty — upload or import');
  await expect(view.getByTestId('match-count')).toHaveText('0 assets');
  await expect(view.getByTestId('no-match')).toHaveCount(0);
  await expect(view.getByTestId('picker-grid')).toHaveCount(0);
  expect(await panelViolations(page)).toEqual([]);
  await atelier.screenshots('picker-empty-library');
  await view.getByTestId('upload-action').click();
  await expect(view.getByTestId('upload-requested')).toBeVisible();
  const msgs = await atelier.events('ui/message');
  expect(msgs).toHaveLength(1);
  expect(JSON.stringify(msgs[0]!.params)).toContain('svc_asset_upload upload');
});

test('picker: a failed select call shows the real error with its field, not "Loading…" or "No assets match"', async ({ atelier, page }) => {
  const { view, result } = await atelier.open('svc_asset_select', 'select', { query: 'falcon' });
  expect(result.isError).toBe(true);
  await expect(view.getByTestId('error')).toBeVisible();
  await expect(view.getByTestId('error').locator('.notice-title')).toContainText(
    /^The request can’t be run as asked: theme_id is required/,
  );
  await expect(view.getByTestId('error-field')).toHaveText('theme_id');
  await expect(view.getByTestId('loading')).toHaveCount(0);
  await expect(view.getByTestId('match-count')).toHaveText('');
  // (outside the notice: the error lists the workspace's themes, whose test-made name quotes this test's title)
  await expect(view.getByText(/No assets match|No match|Loading/).and(view.locator(':not([data-testid="error"] *)'))).toHaveCount(0);
  expect(await panelViolations(page)).toEqual([]);
  await atelier.screenshots('picker-tool-error');
});
