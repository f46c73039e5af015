import fs from 'node:fs';
import path from 'node:path';
import type { McpServer } from '@modelcontextprotocol/server';
import { ROUTERS } from '../../shared/actions.ts';
import type { Logger } from '../log.ts';
import { registerPanelResource, RESOURCE_MIME_TYPE, type McpUiResourceMeta } from './apps.ts';
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
 * on each new McpServer, with `_meta` on both the listing and the content item (hosts read the content item
 * first, the listing as fallback: ext-apps docs/csp-cors.md): `ui.csp` names the asset origin (the origin of
 * `cdnBase`: ATELIER_CDN_URL, else ATELIER_PUBLIC_URL, else this listener) as the only resource domain and no
 * connect domain: the panels talk only through the host, and the only URLs they hold are asset URLs under `/a/`
 * (thumbnails even travel as `data:` URLs, which the hosts' default CSP allows, for hosts that ignore `csp`).
 * ChatGPT reads the same as `openai/widgetCSP` (apps.ts). `ui.domain` is sent when configured (`Config.uiDomain`).
 * HTML is read once from `dir` and cached. A panel whose file is missing (panels not built) is
 * skipped with one warning, so the server starts without `npm run build`; its tool still answers in text.
 * @param cdnBase returns the current CDN base URL (known only after the listener binds)
 * @param domain the stable sandbox origin to ask hosts for, or null
 */
export function createAppResources(opts: {
  dir?: string;
  cdnBase: () => string;
  domain?: string | null;
  log: Logger;
}): (server: McpServer) => void {
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
  const uiMeta = (): McpUiResourceMeta => {
    let origin: string | null;
    try {
      origin = new URL(opts.cdnBase()).origin;
    } catch {
      origin = null;
    }
    return {
      csp: { connectDomains: [], resourceDomains: origin ? [origin] : [] },
      ...(opts.domain ? { domain: opts.domain } : {}),
      prefersBorder: true,
    };
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
