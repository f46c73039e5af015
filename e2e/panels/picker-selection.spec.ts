import type { FrameLocator } from '@playwright/test';
import { PENDING_CANCELLED, PENDING_MESSAGE } from '../../ui/asset-picker/use-pending-toggle.ts';
import { expect, SHARED_LIBRARY, test, type PanelHarness } from './fixtures.ts';

// The picker's selection at its edges: the 50-asset cap, and Space on a cell whose asset is still loading.
// One server per worker, reading its seeded library (SHARED_LIBRARY, 161 assets).
test.use({ isolated: false, library: true });
const ALL = `${SHARED_LIBRARY.total} assets`;

const focused = (view: FrameLocator) => view.locator('[data-testid="picker-cell"][tabindex="0"]');
type Call = { name: string; arguments: { action: string; args: Record<string, unknown> } };

/** Open the picker on the whole shared library and move focus from the search box to the first cell. */
async function openAtFirstCell(atelier: PanelHarness): Promise<FrameLocator> {
  const { view } = await atelier.open('svc_asset_select', 'select', { theme_id: atelier.tenant.theme_id });
  await expect(view.getByTestId('match-count')).toHaveText(ALL);
  await view.getByTestId('picker-search').press('ArrowDown');
  await expect(focused(view)).toHaveAttribute('data-index', '0');
  return view;
}

test('picker caps the selection at 50 with a clear message, and the 50 are accepted', async ({ atelier }) => {
  const view = await openAtFirstCell(atelier);
  await focused(view).press(' ');
  // Shift+ArrowDown extends a row at a time until the cap stops it.
  for (let i = 0; i < 20 && !(await view.getByTestId('selection-cap').isVisible()); i++) await focused(view).press('Shift+ArrowDown');
  await expect(view.getByTestId('selection-cap')).toHaveText('You can choose up to 50 assets at once. Remove one to add another.');
  await expect(view.getByTestId('selection-summary')).toContainText(/^50 assets selected: 1\. .+, 2\. .+, 3\. .+, and 47 more$/);
  await expect(view.getByTestId('use-selected')).toHaveText('Use selected (50)');
  // Space on an unselected cell does not add a 51st.
  await focused(view).press('Control+End');
  await expect(focused(view)).toHaveAttribute('data-index', String(SHARED_LIBRARY.total - 1));
  await focused(view).press(' ');
  await expect(focused(view).getByTestId('selection-badge')).toHaveCount(0);
  await expect(view.getByTestId('live')).toHaveText('You can choose up to 50 assets at once. Remove one to add another.');
  await expect(view.getByTestId('selection-summary')).toContainText(/^50 assets selected/);
  await atelier.screenshots('picker-selection-cap');
  await view.getByTestId('use-selected').click();
  await expect(view.getByTestId('confirmed-list').locator('li')).toHaveCount(50);
  const submit = (await atelier.events('tools/call')).map((e) => e.params as Call).find((p) => p.arguments.action === 'submit_selection');
  expect((submit!.arguments.args.asset_ids as string[]).length).toBe(50);
  expect((await atelier.events('tools/call-result')).some((e) => (e.params as { isError: boolean }).isError)).toBe(false);
});

test('picker: Space on a cell whose asset is still loading says so, and selects it when it arrives; Space twice cancels', async ({
  atelier,
  page,
}) => {
  const view = await openAtFirstCell(atelier);
  // The host's page loads now take 5 s, as on a slow connection (the View's calls go through __callTool): the
  // page of the searched cell may start loading as soon as the results arrive, and under load the keys that
  // follow took more than 2 s, so the cell had arrived before its two Spaces.
  await page.evaluate(() => {
    type Call = (p: { name: string; arguments?: { action?: string } }) => Promise<unknown>;
    const w = window as unknown as { __callTool: Call };
    const call = w.__callTool;
    w.__callTool = async (p) => {
      if (p.arguments?.action === 'page') await new Promise((r) => setTimeout(r, 5000));
      return call(p);
    };
  });
  const last = view.locator(`[data-testid="picker-cell"][data-index="${SHARED_LIBRARY.total - 1}"]`);
  await focused(view).press('Control+End');
  await expect(focused(view)).toHaveAttribute('data-index', String(SHARED_LIBRARY.total - 1));
  await focused(view).press(' ');
  await expect(view.getByTestId('live')).toHaveText(PENDING_MESSAGE);
  await expect(last.getByTestId('selection-badge')).toHaveText('1');
  await expect(view.getByTestId('live')).toHaveText(/^Selected .+ as number 1\. 1 asset selected\.$/);
  // Space twice on a cell still loading: nothing changes once it arrives.
  await focused(view).press('Control+Home');
  await expect(focused(view)).toHaveAttribute('data-index', '0');
  await view.getByTestId('picker-search').fill('quay');
  await view.getByTestId('picker-search').press('Enter');
  await expect(view.getByTestId('match-count')).toContainText('52');
  await view.getByTestId('picker-search').press('ArrowDown');
  await focused(view).press('Control+End');
  await expect(focused(view)).toHaveAttribute('data-index', '51');
  await focused(view).press(' ');
  await focused(view).press(' ');
  await expect(view.getByTestId('live')).toHaveText(PENDING_CANCELLED);
  await expect(focused(view)).toContainText(/\.jpg/, { timeout: 15_000 });
  await expect(focused(view).getByTestId('selection-badge')).toHaveCount(0);
  await expect(view.getByTestId('selection-summary')).toContainText(/^1 asset selected/);
});
