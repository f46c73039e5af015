import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';

/**
 * axe-core (https://github.com/dequelabs/axe-core) WCAG 2.1 A/AA and best-practice rules over the test
 * host page; only nodes inside the panel's iframe count (the host page is scaffolding). Returns one
 * line per violating node: `rule (impact): target  summary`.
 */
export async function panelViolations(page: Page): Promise<string[]> {
  const r = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  return r.violations.flatMap((v) =>
    v.nodes
      .filter((n) => Array.isArray(n.target[0]) || n.target.length > 1) // a frame path: the node is inside the panel
      .map((n) => `${v.id} (${v.impact}): ${JSON.stringify(n.target)} ${n.failureSummary?.split('\n')[1] ?? ''}`),
  );
}
