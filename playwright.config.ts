import { defineConfig } from '@playwright/test';

/**
 * Panel tests: each MCP Apps panel runs inside the test host (e2e/host, AppBridge + a sandbox proxy on a
 * second origin with the spec-default CSP) against the real server. Every test starts its own server and
 * host servers in-process (fixtures.ts), so no `webServer` is needed. Debian's Chromium is used
 * (`npx playwright install` cannot download browsers here); CHROMIUM_PATH overrides its location.
 * Prerequisite: `npm run build` (the panels' HTML); globalSetup builds the test host page.
 */
const chromium = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

export default defineConfig({
  testDir: 'e2e/panels',
  testMatch: '**/*.spec.ts',
  globalSetup: './e2e/panels/global-setup.ts',
  timeout: 90_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 2,
  retries: 0,
  reporter: [['list']],
  outputDir: 'test-results',
  use: {
    headless: true,
    trace: 'retain-on-failure',
    viewport: { width: 820, height: 900 },
    launchOptions: {
      executablePath: chromium,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-dev-shm-usage',
      ],
    },
  },
  projects: [{ name: 'chromium', use: { browserName: 'chromium' } }],
});
