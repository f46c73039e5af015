import type { FrameLocator } from '@playwright/test';
import { expect, test } from './fixtures.ts';
import { importNature, seedRows } from './seed.ts';

const focused = (view: FrameLocator) => view.locator('[data-testid="picker-cell"][tabindex="0"]');

test('picker end to end by keyboard only: search, move, select 3 in order, confirm; submit, model context, message and get_selection agree', async ({
  atelier,
}) => {
  const { app, tenant } = atelier.server;
  const scope = { tenantId: tenant.tenant_id, workspaceId: tenant.workspace_id };
  const nature = await importNature(atelier.client, tenant.workspace_id);
  await seedRows(app, scope, 64, { prefix: 'studio', templateIds: nature.map((n) => n.id) });

  const { view, result } = await atelier.open('svc_asset_select', 'select', { theme_id: tenant.theme_id });
  // The call returns at once: not an error, a picker id, and text telling the agent to wait.
  expect(result.isError).toBeFalsy();
  const sc = result.structuredContent as { picker_id: string; status: string; delivery: string };
  expect(sc).toMatchObject({ status: 'awaiting_user', delivery: 'panel' });
  const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
  expect(text).toContain('NOTHING IS SELECTED YET');
  expect(text).toContain(sc.picker_id);

  await expect(view.getByTestId('match-count')).toHaveText('72 assets');
  await expect(view.getByTestId('facets')).toContainText('All 72');

  // Keyboard only from here: focus the search box (as a host does when the user tabs into the panel).
  const search = view.getByTestId('picker-search');
  await search.focus();
  await search.press('Control+a');
  await search.pressSequentially('studio');
  await search.press('Enter');
  await expect(view.getByTestId('match-count')).toHaveText(/^\d+ assets$/);
  await expect(view.locator('[data-testid="picker-cell"][data-index="0"]')).toHaveAttribute('data-asset-id', /.+/);
  await expect(view.locator('[data-testid="picker-cell"][data-index="0"]')).toContainText('studio-');
  await search.press('ArrowDown');
  await expect(focused(view)).toBeFocused();
  await expect(focused(view)).toHaveAttribute('data-index', '0');
  const grid = view.getByTestId('picker-grid');
  const cols = Number(await grid.getAttribute('aria-colcount'));
  expect(cols).toBeGreaterThan(1);

  const chosen: string[] = [];
  const pick = async (): Promise<void> => {
    const id = await focused(view).getAttribute('data-asset-id');
    await focused(view).press(' ');
    chosen.push(id!);
    await expect(focused(view).getByTestId('selection-badge')).toHaveText(String(chosen.length));
  };
  await focused(view).press('ArrowRight');
  await focused(view).press('ArrowRight');
  await expect(focused(view)).toHaveAttribute('data-index', '2');
  await pick(); // 1st: index 2
  await focused(view).press('ArrowDown');
  await expect(focused(view)).toHaveAttribute('data-index', String(2 + cols));
  await pick(); // 2nd: one row down
  await focused(view).press('Home');
  await expect(focused(view)).toHaveAttribute('data-index', String(cols));
  await pick(); // 3rd: start of that row
  await expect(view.getByTestId('live')).toHaveText(/3 assets selected\.$/);
  await expect(view.getByTestId('selection-badge')).toHaveCount(3);

  // Escape clears; Space toggles; Shift+arrows extend: rebuild the same order to prove each key.
  await focused(view).press('Escape');
  await expect(view.getByTestId('selection-badge')).toHaveCount(0);
  await expect(view.getByTestId('live')).toHaveText('Selection cleared. 0 assets selected.');
  await focused(view).press('Control+Home');
  await expect(focused(view)).toHaveAttribute('data-index', '0');
  await focused(view).press('Shift+ArrowRight');
  await expect(view.getByTestId('selection-badge')).toHaveCount(2); // index 0 and 1, in travel order
  await focused(view).press(' '); // toggles index 1 off again
  await expect(view.getByTestId('selection-badge')).toHaveCount(1);
  await focused(view).press('Escape');
  await expect(view.getByTestId('selection-badge')).toHaveCount(0);
  // …and the chosen three again, in the same order.
  for (const [i, id] of chosen.entries()) {
    while ((await focused(view).getAttribute('data-asset-id')) !== id) {
      const at = Number(await focused(view).getAttribute('data-index'));
      const target = Number(await view.locator(`[data-testid="picker-cell"][data-asset-id="${id}"]`).getAttribute('data-index'));
      await focused(view).press(
        target > at ? (target - at >= cols ? 'ArrowDown' : 'ArrowRight') : at - target >= cols ? 'ArrowUp' : 'ArrowLeft',
      );
    }
    await focused(view).press(' ');
    await expect(focused(view).getByTestId('selection-badge')).toHaveText(String(i + 1));
  }
  await atelier.screenshot('asset-picker-light');
  await atelier.setTheme('dark');
  await expect(view.locator('html')).toHaveAttribute('data-theme', 'dark');
  await atelier.screenshot('asset-picker-dark');
  await atelier.setTheme('light');

  await focused(view).press('Enter');
  await expect(view.getByTestId('confirmed')).toBeVisible();
  await expect(view.getByTestId('confirmed-list').locator('li')).toHaveCount(3);

  // 1. the app-only submit carried the ids in selection order
  const submits = (await atelier.events('tools/call')).filter(
    (e) => (e.params as { arguments: { action: string } }).arguments.action === 'submit_selection',
  );
  expect(submits).toHaveLength(1);
  expect(submits[0]!.params as { name: string; arguments: { args: { picker_id: string; asset_ids: string[] } } }).toMatchObject({
    name: 'svc_asset_panel',
    arguments: { args: { picker_id: sc.picker_id, asset_ids: chosen } },
  });
  // 2. the model context holds the ordered selection (name, id, original URL)
  const ctx = await atelier.events('ui/update-model-context');
  expect(ctx).toHaveLength(1);
  const ctxParams = ctx[0]!.params as {
    content: { text: string }[];
    structuredContent: { picker_id: string; selection: { id: string; name: string; original_url: string }[] };
  };
  expect(ctxParams.structuredContent.picker_id).toBe(sc.picker_id);
  expect(ctxParams.structuredContent.selection.map((s) => s.id)).toEqual(chosen);
  for (const s of ctxParams.structuredContent.selection)
    expect(s.original_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/a\/[A-Za-z0-9_-]{22}\.jpg$/);
  // 3. the user message lists them in the same order
  const msgs = await atelier.events('ui/message');
  expect(msgs).toHaveLength(1);
  const msg = msgs[0]!.params as { role: string; content: { type: string; text: string }[] };
  expect(msg.role).toBe('user');
  const lines = msg.content[0]!.text.split('\n').slice(1);
  expect(lines.map((l) => /\(id ([0-9a-f-]{36})\)/.exec(l)?.[1])).toEqual(chosen);
  const names = ctxParams.structuredContent.selection.map((s) => s.name);
  lines.forEach((l, i) => expect(l).toContain(`${i + 1}. ${names[i]} (id ${chosen[i]}) http://127.0.0.1:`));
  // Order of events: submit → model context → message.
  const types = (await atelier.events())
    .map((e) => e.type)
    .filter((t) => ['tools/call-result', 'ui/update-model-context', 'ui/message'].includes(t));
  expect(types.slice(-3)).toEqual(['tools/call-result', 'ui/update-model-context', 'ui/message']);

  // 4. the model-visible get_selection returns the same ordered choice
  const state = await atelier.client.call('svc_asset_select', 'get_selection', { picker_id: sc.picker_id });
  expect(state.isError).toBe(false);
  expect(state.structured).toMatchObject({ picker_id: sc.picker_id, status: 'confirmed' });
  expect((state.structured.selection as { id: string; position: number }[]).map((s) => s.id)).toEqual(chosen);
  expect(state.text).toContain('the user selected 3 asset(s), in this order');
  await atelier.screenshot('asset-picker-confirmed');

  // A host that recreates the iframe and resends the same result shows the stored choice, not a fresh picker.
  const again = await atelier.remount();
  await expect(again.view.getByTestId('confirmed-list').locator('li')).toHaveText(names);
  expect(await atelier.events('ui/message')).toHaveLength(1);
});

test('picker with 10,000 assets keeps a bounded DOM and follows keyboard moves to the end', async ({ atelier }) => {
  const { app, tenant } = atelier.server;
  const scope = { tenantId: tenant.tenant_id, workspaceId: tenant.workspace_id };
  const nature = await importNature(atelier.client, tenant.workspace_id);
  await seedRows(app, scope, 10_000, { prefix: 'bulk', templateIds: nature.map((n) => n.id) });

  const { view } = await atelier.open('svc_asset_select', 'select', { theme_id: tenant.theme_id });
  await expect(view.getByTestId('match-count')).toHaveText('10008 assets');
  const cells = view.getByTestId('picker-cell');
  const grid = view.getByTestId('picker-grid');
  const cols = Number(await grid.getAttribute('aria-colcount'));
  await expect(grid).toHaveAttribute('aria-rowcount', String(Math.ceil(10_008 / cols)));
  const bound = 10 * cols; // rows in view (≤ 3) + overscan (2 above, 2 below) + the focused row, with slack
  const inDom = async (): Promise<number> => cells.count();
  expect(await inDom()).toBeLessThanOrEqual(bound);

  await view.getByTestId('picker-search').focus();
  await view.getByTestId('picker-search').press('ArrowDown');
  await expect(focused(view)).toHaveAttribute('data-index', '0');
  for (let i = 1; i <= 4; i++) {
    await focused(view).press('PageDown');
    await expect(focused(view)).toBeFocused();
    await expect(focused(view)).toHaveAttribute('data-index', String(i * 2 * cols));
  }
  expect(await inDom()).toBeLessThanOrEqual(bound);
  // Jump to the very end: the page holding the last asset loads directly (random access), not 200 pages in order.
  const pageCalls = async (): Promise<number> =>
    (await atelier.events('tools/call')).filter((e) => {
      const p = e.params as { name?: string; arguments?: { action?: string } };
      return (p.name === 'svc_asset_panel' && p.arguments?.action === 'page') || p.name === 'svc_asset_library';
    }).length;
  const callsBefore = await pageCalls();
  await focused(view).press('Control+End');
  await expect(focused(view)).toHaveAttribute('data-index', '10007');
  await expect(focused(view)).toBeFocused();
  // Browse order is newest first: the oldest seeded row is last.
  await expect(focused(view)).toContainText('bulk-00001.jpg', { timeout: 60_000 });
  expect((await pageCalls()) - callsBefore).toBeLessThanOrEqual(4);
  expect(await inDom()).toBeLessThanOrEqual(bound);
  await focused(view).press('ArrowUp');
  await expect(focused(view)).toHaveAttribute('data-index', String(10_007 - cols));
  await focused(view).press(' ');
  await expect(focused(view).getByTestId('selection-badge')).toHaveText('1');
  await focused(view).press('Control+Home');
  await expect(focused(view)).toHaveAttribute('data-index', '0');
  await expect(focused(view)).toBeFocused();
  expect(await inDom()).toBeLessThanOrEqual(bound);
  await expect(view.locator('[data-testid="picker-cell"][data-index="0"]')).toContainText('polemonium_reptans.jpg'); // imported last
  const counts = { cells: await inDom(), bound, cols, rows: Math.ceil(10_008 / cols) };
  test.info().annotations.push({ type: 'dom-cells', description: JSON.stringify(counts) });
  console.log(`10,008 assets: ${counts.cells} cells in the DOM (bound ${bound}; ${cols} columns × ${counts.rows} rows)`);
});

test('picker shape filter: portrait narrows the grid and the category counts', async ({ atelier }) => {
  const { tenant } = atelier.server;
  await importNature(atelier.client, tenant.workspace_id);
  const { view } = await atelier.open('svc_asset_select', 'select', { theme_id: tenant.theme_id });
  await expect(view.getByTestId('match-count')).toHaveText('8 assets');
  await expect(view.getByRole('radio', { name: 'Any shape' })).toBeChecked();
  await view.getByTestId('shape-portrait').click();
  // cyclamen (512×848) is the only portrait photo of the eight
  await expect(view.getByTestId('match-count')).toHaveText('1 asset');
  await expect(view.getByTestId('facets')).toContainText('All 1');
  await expect(view.getByTestId('picker-cell')).toHaveCount(1);
  await expect(view.getByTestId('picker-grid')).toContainText('cyclamen_persicum.jpg');
  await view.getByTestId('shape-any').click();
  await expect(view.getByTestId('match-count')).toHaveText('8 assets');
});

test("picker opened with the agent's orientation shows that shape selected", async ({ atelier }) => {
  const { tenant } = atelier.server;
  await importNature(atelier.client, tenant.workspace_id);
  const { view } = await atelier.open('svc_asset_select', 'select', { theme_id: tenant.theme_id, orientation: 'portrait' });
  await expect(view.getByRole('radio', { name: 'Portrait' })).toBeChecked();
  await expect(view.getByTestId('match-count')).toHaveText('1 asset');
  await expect(view.getByTestId('facets')).toContainText('All 1');
});
