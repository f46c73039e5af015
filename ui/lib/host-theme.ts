import { applyDocumentTheme, applyHostFonts, applyHostStyleVariables, type McpUiHostContext } from '@modelcontextprotocol/ext-apps';

/**
 * Apply the host's theme (`data-theme` + `color-scheme` on <html>), its standard CSS variables
 * (`--color-background-primary` …) and fonts, and its safe-area insets as `--safe-top/right/bottom/left`
 * (px). Panel CSS (`ui/lib/panel.css`) reads every variable with a fallback, so a host that sends a
 * subset still renders correctly. Call with a partial context on `host-context-changed` (fields absent
 * from the update are left alone).
 * Source: MCP Apps spec 2026-01-26 HostContext (theme, styles.variables, styles.css.fonts, safeAreaInsets).
 */
export function applyHostContext(ctx: Partial<McpUiHostContext> | undefined): void {
  if (!ctx) return;
  if (ctx.theme === 'light' || ctx.theme === 'dark') applyDocumentTheme(ctx.theme);
  if (ctx.styles?.variables) applyHostStyleVariables(ctx.styles.variables);
  if (ctx.styles?.css?.fonts) applyHostFonts(ctx.styles.css.fonts);
  if (ctx.safeAreaInsets) {
    const root = document.documentElement.style;
    for (const side of ['top', 'right', 'bottom', 'left'] as const)
      root.setProperty(`--safe-${side}`, `${Math.max(0, ctx.safeAreaInsets[side] ?? 0)}px`);
  }
  if (ctx.deviceCapabilities?.touch !== undefined) document.documentElement.dataset.touch = String(ctx.deviceCapabilities.touch);
}

/**
 * sessionStorage that never throws: sandboxed, cross-site iframes may deny storage with a SecurityError
 * (research note §4.4 finding 2), so every access is wrapped and failures fall back to "not stored".
 */
export const safeSession = {
  get(key: string): string | null {
    try {
      return window.sessionStorage.getItem(key);
    } catch {
      return null;
    }
  },
  set(key: string, value: string): void {
    try {
      window.sessionStorage.setItem(key, value);
    } catch {
      /* storage denied in this sandbox: state lives on the server only */
    }
  },
};
