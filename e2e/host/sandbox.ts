/**
 * Sandbox proxy of the test host (origin B): relays JSON-RPC between the host page (origin A) and the
 * View, which runs in an inner iframe whose document is written from the `sandbox-resource-ready` HTML,
 * so it inherits this page's origin and its CSP header (the spec-default policy built by the test server).
 * Mirrors ext-apps examples/basic-host/src/sandbox.ts (MCP Apps spec 2026-01-26 "Sandbox proxy").
 */
const hostOrigin = document.referrer ? new URL(document.referrer).origin : null;
if (!hostOrigin || window.top === window) throw new Error('sandbox must be framed by the test host');

const inner = document.createElement('iframe');
inner.name = 'mcp-app';
inner.setAttribute('sandbox', 'allow-scripts allow-same-origin allow-forms');
inner.title = 'MCP App';
document.body.appendChild(inner);

window.addEventListener('message', (event: MessageEvent) => {
  const data = event.data as { method?: string; params?: { html?: string; sandbox?: string } } | null;
  if (event.source === window.parent) {
    if (event.origin !== hostOrigin) return;
    if (data?.method === 'ui/notifications/sandbox-resource-ready') {
      if (data.params?.sandbox) inner.setAttribute('sandbox', data.params.sandbox);
      const doc = inner.contentDocument;
      if (!doc) throw new Error('inner frame has no document');
      doc.open();
      doc.write(data.params?.html ?? '');
      doc.close();
      return;
    }
    inner.contentWindow?.postMessage(event.data, window.location.origin);
  } else if (event.source === inner.contentWindow) {
    if (event.origin !== window.location.origin) return;
    if (data?.method?.startsWith('ui/notifications/sandbox-')) return;
    window.parent.postMessage(event.data, hostOrigin);
  }
});

window.parent.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/sandbox-proxy-ready', params: {} }, hostOrigin);
