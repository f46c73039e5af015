import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';

type AxeResults = Awaited<ReturnType<AxeBuilder['analyze']>>;

/** Analyses of the host page tried before giving up on reaching the panel's document. */
const ATTEMPTS = 3;

/**
 * Whether an analysis reached the panel's own document: the iframe inside the sandbox proxy (`#app-frame`),
 * so nodes three frames deep (host page, proxy, panel). @axe-core/playwright skips a frame that takes over
 * a second to take axe's script (its `inject` "Script Timeout"), as a loaded machine's nested frame can;
 * the page-level rules then judge the proxy's empty document ("no main landmark", "no level-one heading").
 */
function reachedPanel(r: AxeResults): boolean {
  return [...r.passes, ...r.violations, ...r.incomplete].some((rule) => rule.nodes.some((n) => n.target.length >= 3));
}

/**
 * axe-core (https://github.com/dequelabs/axe-core) WCAG 2.1 A/AA and best-practice rules over the test
 * host page; only nodes inside the panel's iframe count (the host page is scaffolding). An analysis that did
 * not reach the panel's document (`reachedPanel`) is no analysis of the panel and is run again. Returns one
 * line per violating node: `rule (impact): target  summary`.
 * @throws Error when ATTEMPTS analyses in a row did not reach the panel's document
 */
export async function panelViolations(page: Page): Promise<string[]> {
  let r: AxeResults | null = null;
  for (let i = 0; i < ATTEMPTS && !(r && reachedPanel(r)); i++) {
    r = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  }
  if (!r || !reachedPanel(r)) throw new Error(`axe did not reach the panel's document in ${ATTEMPTS} analyses`);
  return r.violations.flatMap((v) =>
    v.nodes
      .filter((n) => Array.isArray(n.target[0]) || n.target.length > 1) // a frame path: the node is inside the panel
      .map((n) => `${v.id} (${v.impact}): ${JSON.stringify(n.target)} ${n.failureSummary?.split('\n')[1] ?? ''}`),
  );
}
