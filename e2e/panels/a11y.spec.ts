import path from 'node:path';
import { DEMO_DIR } from '../mcp/harness.ts';
import { panelViolations } from './axe.ts';
import { expect, SHARED_LIBRARY, test } from './fixtures.ts';

test.use({ isolated: false });

/** WCAG 2.1 A/AA and best-practice axe checks of each panel, light and dark, inside the test host (see axe.ts). */
test.describe('with the shared library', () => {
  test.use({ library: true });
  for (const theme of ['light', 'dark'] as const) {
    test(`picker passes axe (WCAG 2.1 A/AA and best practice) (${theme})`, async ({ atelier, page }) => {
      const { tenant } = atelier;
      const picker = await atelier.open('svc_asset_select', 'select', { theme_id: tenant.theme_id }, { theme });
      await expect(picker.view.getByTestId('match-count')).toHaveText(`${SHARED_LIBRARY.total} assets`);
      await expect(picker.view.locator('[data-testid="picker-cell"] img').first()).toBeVisible();
      await picker.view.locator('[data-testid="picker-cell"][data-index="1"]').click();
      expect(await panelViolations(page)).toEqual([]);
    });

    test(`search panel passes axe (WCAG 2.1 A/AA and best practice) (${theme})`, async ({ atelier, page }) => {
      const { tenant } = atelier;
      const search = await atelier.open('svc_asset_library', 'search', { theme_id: tenant.theme_id, query: 'harbour' }, { theme });
      await expect(search.view.getByTestId('asset-card').first()).toBeVisible();
      expect(await panelViolations(page)).toEqual([]);
    });

    test(`search panel and picker pass axe when nothing matches, with suggestions (${theme})`, async ({ atelier, page }) => {
      const { tenant } = atelier;
      const query = 'harbour basketball court volcano';
      const search = await atelier.open('svc_asset_library', 'search', { theme_id: tenant.theme_id, query }, { theme });
      await expect(search.view.getByTestId('no-match')).toBeVisible();
      await expect(search.view.getByTestId('suggestion').first().locator('img')).toBeVisible();
      expect(await panelViolations(page)).toEqual([]);
      const picker = await atelier.open('svc_asset_select', 'select', { theme_id: tenant.theme_id, query }, { theme });
      await expect(picker.view.getByTestId('no-match')).toBeVisible();
      await expect(picker.view.getByTestId('suggestion').first().locator('img')).toBeVisible();
      await picker.view.getByTestId('suggestion-pick').first().click(); // a chosen suggestion too
      await expect(picker.view.getByTestId('suggestion-pick').first()).toHaveAttribute('aria-pressed', 'true');
      expect(await panelViolations(page)).toEqual([]);
    });
  }
});

for (const theme of ['light', 'dark'] as const) {
  test(`upload panel passes axe with no file, one file, two files and after the upload (${theme})`, async ({ atelier, page }) => {
    const { tenant } = atelier;
    const upload = await atelier.open('svc_asset_upload', 'upload', { theme_id: tenant.theme_id }, { theme });
    await expect(upload.view.locator('.uppy-Dashboard')).toBeVisible();
    expect(await panelViolations(page)).toEqual([]);
    // One file (Uppy's single-file layout) and two (its list layout), then after they reached the library.
    await upload.view
      .locator('input[type="file"]')
      .first()
      .setInputFiles([path.join(DEMO_DIR, 'images/nature/silver_fir.jpg')]);
    await expect(upload.view.locator('.uppy-Dashboard-Item')).toHaveCount(1);
    expect(await panelViolations(page)).toEqual([]);
    await upload.view.locator('.uppy-DashboardContent-addMore').click();
    await upload.view
      .locator('input[type="file"]')
      .first()
      .setInputFiles([path.join(DEMO_DIR, 'images/nature/wood_anemones.jpg')]);
    await expect(upload.view.locator('.uppy-Dashboard-Item')).toHaveCount(2);
    expect(await panelViolations(page)).toEqual([]);
    await upload.view.locator('.uppy-StatusBar-actionBtn--upload').click();
    await expect(upload.view.getByTestId('uploaded-item')).toHaveCount(2);
    expect(await panelViolations(page)).toEqual([]);
  });
}
