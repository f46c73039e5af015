import { randomBytes } from 'node:crypto';
import type { Response } from 'express';

/** HTML-escape text for element content and double-quoted attributes. */
export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/**
 * Send a sign-in or consent page with the headers of a login page: a CSP allowing only this page's own
 * nonce'd style, forms posting to this origin and to the client's redirect origin (Chrome applies
 * `form-action` to the redirects that follow a submission, and consent ends in a redirect to the client),
 * `frame-ancestors 'none'` (no clickjacking), no referrer, no caching. HSTS comes from the global helmet
 * headers (browsers honour it only over TLS).
 * @param redirectOrigin origin of the client's redirect URI, or null
 */
export function sendPage(res: Response, status: number, title: string, body: string, redirectOrigin: string | null): void {
  const nonce = randomBytes(16).toString('base64');
  const formAction = ["'self'", ...(redirectOrigin ? [redirectOrigin] : [])].join(' ');
  res.setHeader(
    'Content-Security-Policy',
    `default-src 'none'; style-src 'nonce-${nonce}'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
  );
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  res.status(status).type('html').send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} · Atelier</title>
<style nonce="${nonce}">
body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#1d1d1f}
h1{font-size:1.4rem}label{display:block;margin:.6rem 0}input[type=password],input[type=text]{width:100%;padding:.5rem;font:inherit}
button{font:inherit;padding:.5rem 1rem;margin:.8rem .5rem 0 0}.err{color:#b00020}.muted{color:#555}code{word-break:break-all}
</style></head><body><main>${body}</main></body></html>`);
}

/**
 * The sign-in forms of an interaction (`action`: its path, `<issuer path>/interaction/<uid>`): an operator
 * account (name + password, `atelier user create`) or, for the single-operator default, an API key of the tenant.
 */
export function loginPage(action: string, clientName: string, error: string | null): string {
  return `<h1>Sign in to Atelier</h1>
<p><strong>${esc(clientName)}</strong> wants to connect to Atelier.</p>
${error ? `<p class="err" role="alert">${esc(error)}</p>` : ''}
${signInForms(action)}`;
}

/**
 * The two sign-in forms, both posting to `<action>/login`: an operator account (name + password) and an
 * API key of the tenant. Shared by the consent flow's sign-in and the grants page.
 */
export function signInForms(action: string): string {
  return `<form method="post" action="${esc(action)}/login">
<label>User name<input type="text" name="name" autocomplete="username" required></label>
<label>Password<input type="password" name="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button></form>
<form method="post" action="${esc(action)}/login" autocomplete="off">
<label>Or an API key of your tenant<input type="password" name="api_key" required></label>
<button type="submit">Sign in with the key</button></form>`;
}

/** The consent form: who asks, for what, and which workspaces the grant reaches (all checked by default off). */
export function consentPage(
  action: string,
  client: { name: string; redirectUri: string },
  scopes: string[],
  workspaces: { id: string; name: string }[],
  error: string | null,
): string {
  const boxes = workspaces
    .map(
      (w) =>
        `<label><input type="checkbox" name="workspace" value="${esc(w.id)}"> ${esc(w.name)} <span class="muted">(${esc(w.id)})</span></label>`,
    )
    .join('\n');
  return `<h1>Allow ${esc(client.name)}?</h1>
<p><strong>${esc(client.name)}</strong> (returns to <code>${esc(client.redirectUri)}</code>) asks for: ${scopes.map((s) => `<code>${esc(s)}</code>`).join(', ')}.</p>
${error ? `<p class="err" role="alert">${esc(error)}</p>` : ''}
<form method="post" action="${esc(action)}/confirm">
<fieldset><legend>Workspaces it may reach</legend>
${boxes}
</fieldset>
<button type="submit">Allow</button><button type="submit" formaction="${esc(action)}/abort" formnovalidate>Deny</button></form>`;
}
