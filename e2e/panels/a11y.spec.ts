import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.ts';
import { importNature } from './seed.ts';

/**
 * WCAG 2.1 A/AA checks with axe-core (https://github.com/dequelabs/axe-core) on each panel, light and
 * dark, inside the test host. Only nodes inside the panel's iframe count (the host page is scaffolding).
 */
async function panelViolations(page: Page): Promise<string[]> {
  const r = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return r.violations.flatMap((v) =>
    v.nodes
      .filter((n) => Array.isArray(n.target[0]) || n.target.length > 1) // a frame path: the node is inside the panel
      .map((n) => `${v.id} (${v.impact}): ${JSON.stringify(n.target)} ${n.failureSummary?.split('\n')[1] ?? ''}`),
  );
}

for (const theme of ['light', 'dark'] as const) {
  test(`picker passes axe WCAG 2.1 AA checks (${theme})`, async ({ atelier, page }) => {
    const { tenant } = atelier.server;
    await importNature(atelier.client, tenant.workspace_id);
    const picker = await atelier.open('svc_asset_select', 'select', { theme_id: tenant.theme_id }, { theme });
    await expect(picker.view.getByTestId('match-count')).toHaveText('8 assets');
    await expect(picker.view.locator('[data-testid="picker-cell"] img').first()).toBeVisible();
    await picker.view.locator('[data-testid="picker-cell"][data-index="1"]').click();
    expect(await panelViolations(page)).toEqual([]);
  });

  test(`search panel passes axe WCAG 2.1 AA checks (${theme})`, async ({ atelier, page }) => {
    const { tenant } = atelier.server;
    await importNature(atelier.client, tenant.workspace_id);
    const search = await atelier.open('svc_asset_library', 'search', { theme_id: tenant.theme_id, query: 'nature' }, { theme });
    await expect(search.view.getByTestId('asset-card').first()).toBeVisible();
    expect(await panelViolations(page)).toEqual([]);
  });

  test(`upload panel passes axe WCAG 2.1 AA checks (${theme})`, async ({ atelier, page }) => {
    const { tenant } = atelier.server;
    const upload = await atelier.open('svc_asset_upload', 'upload', { theme_id: tenant.theme_id }, { theme });
    await expect(upload.view.locator('.uppy-Dashboard')).toBeVisible();
    expect(await panelViolations(page)).toEqual([]);
  });
}
