import type { App } from '@modelcontextprotocol/ext-apps';

/** Characters of a content hash kept on each side of the ellipsis. */
const HEAD = 8;
const TAIL = 6;

/**
 * A permanent CDN URL shown for reading without breaking it mid-hash: a short content address
 * (`/a/<22 characters>.<ext>`) is shown whole; a long hex run (legacy `/cdn/<sha256>` names) becomes `3f2a9c1e…b7d0e1`; the whole URL stays in the link (opened through the
 * host with `ui/open-link`; sandboxed panels cannot open windows) and in its tooltip. Lines may break
 * only between path segments.
 */
export function CdnLink({ url, app }: { url: string; app: App | null }) {
  let shown = url;
  try {
    const u = new URL(url);
    const path = u.pathname.replace(/[0-9a-f]{24,}/gi, (h) => `${h.slice(0, HEAD)}…${h.slice(-TAIL)}`);
    shown = `${u.host}${path}`;
  } catch {
    /* not a URL: show as is */
  }
  const parts = shown.split('/');
  return (
    <a
      className="url"
      href={url}
      title={url}
      data-testid="cdn-url"
      onClick={(e) => {
        if (!app?.getHostCapabilities()?.openLinks) return;
        e.preventDefault();
        void app.openLink({ url }).catch(() => undefined);
      }}
      target="_blank"
      rel="noreferrer"
    >
      {parts.map((p, i) => (
        <span key={i} className="seg">
          {i > 0 ? `/${p}` : p}
        </span>
      ))}
    </a>
  );
}
