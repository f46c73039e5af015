import fs from 'node:fs';
import path from 'node:path';
import type { McpServer } from '@modelcontextprotocol/server';
import { ROUTERS } from '../../shared/actions.ts';
import type { Logger } from '../log.ts';
import { registerPanelResource, RESOURCE_MIME_TYPE } from './apps.ts';
import { packagePath } from '../package-root.ts';

/** MIME type of an MCP Apps View (SEP-1865, spec 2026-01-26 "UI resources"); ext-apps' `RESOURCE_MIME_TYPE`. */
export const MCP_APP_MIME = RESOURCE_MIME_TYPE;

/** Default location of the built panels (`npm run build` → dist/ui/<panel>.html). */
export const DEFAULT_UI_DIST = packagePath('dist', 'ui');

/** One panel resource: its `ui://` URI and built HTML file. */
export interface PanelResource {
  uri: string;
  name: string;
  file: string;
  title: string;
}

/** Every `resourceUri` in the router registry, mapped to `dist/ui/<name>.html` (`ui://atelier/<name>.html`). */
export function panelResources(dir: string): PanelResource[] {
  const seen = new Map<string, PanelResource>();
  for (const r of ROUTERS) {
    if (!r.resourceUri || seen.has(r.resourceUri)) continue;
    const name = path.basename(new URL(r.resourceUri).pathname, '.html');
    seen.set(r.resourceUri, { uri: r.resourceUri, name, file: path.join(dir, `${name}.html`), title: `${r.title} panel` });
  }
  return [...seen.values()];
}

/**
 * Registers the MCP Apps panel resources (`ui://atelier/<panel>.html`, MIME `text/html;profile=mcp-app`)
 * on each new McpServer. `_meta.ui` `{csp, prefersBorder}` goes on both the listing and the content item
 * (hosts read the content item first, the listing as fallback: ext-apps docs/csp-cors.md). The CSP
 * declares no connect domains (panels talk only through the host) and the CDN origin as a resource
 * domain for hosts that honour it; thumbnails still travel as `data:` URLs for hosts that do not.
 * HTML is read once from `dir` and cached. A panel whose file is missing (panels not built) is
 * skipped with one warning, so the server starts without `npm run build`; its tool still answers in text.
 * @param cdnBase returns the current CDN base URL (known only after the listener binds)
 */
export function createAppResources(opts: { dir?: string; cdnBase: () => string; log: Logger }): (server: McpServer) => void {
  const dir = opts.dir ?? DEFAULT_UI_DIST;
  const panels = panelResources(dir);
  const cache = new Map<string, string>();
  const missing = panels.filter((p) => !fs.existsSync(p.file));
  if (missing.length) {
    opts.log.warn(
      { dir, missing: missing.map((p) => p.name) },
      'MCP Apps panels not built (run `npm run build`): those tools answer in text only',
    );
  }
  const uiMeta = (): { csp: { connectDomains: string[]; resourceDomains: string[] }; prefersBorder: boolean } => {
    let origin: string | null;
    try {
      origin = new URL(opts.cdnBase()).origin;
    } catch {
      origin = null;
    }
    return { csp: { connectDomains: [], resourceDomains: origin ? [origin] : [] }, prefersBorder: true };
  };
  const read = (p: PanelResource): string => {
    let html = cache.get(p.uri);
    if (html === undefined) {
      html = fs.readFileSync(p.file, 'utf8');
      cache.set(p.uri, html);
    }
    return html;
  };
  return (server) => {
    for (const p of panels) {
      if (!fs.existsSync(p.file) && !cache.has(p.uri)) continue;
      registerPanelResource(server, {
        name: p.name,
        uri: p.uri,
        title: p.title,
        description: `MCP Apps panel ${p.name}`,
        meta: uiMeta,
        read: () => read(p),
      });
    }
  };
}
