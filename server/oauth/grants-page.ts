import Cookies from 'cookies';
import express, { type Request, type Response, type Router } from 'express';
import Keygrip from 'keygrip';
import type { OAuthStore } from '../db/ports/oauth-store.ts';
import type { TenancyStore } from '../db/ports/tenancy-store.ts';
import type { Logger } from '../log.ts';
import { listGrants, revokeGrant, type GrantView } from './grants.ts';
import { sameOrigin } from './interactions.ts';
import type { SignInLimits } from './limits.ts';
import { esc, sendPage, signInForms } from './pages.ts';
import { operatorSignIn, type SignInForm } from './sign-in.ts';

/** Name of the grants page's session cookie. */
const COOKIE = 'atelier_grants';
/** How long a grants-page sign-in lasts, ms. */
export const GRANTS_SESSION_MS = 15 * 60_000;

/**
 * The operator's page of OAuth grants (issue 37 item 3), under the issuer path at `/grants`: sign in
 * (operator account or API key, under the same brute-force limits as the consent flow), see each
 * connector with the workspaces it reaches, revoke one (the same effect as `atelier grants revoke`).
 * The session is a cookie signed with the authorization server's cookie keys (Keygrip HMAC-SHA256) holding
 * the tenant id and an expiry; it is HttpOnly, SameSite=Strict and limited to this path, Secure over TLS.
 * Every POST must come from this origin (CSRF: SameSite=Strict plus the Origin / Sec-Fetch-Site check).
 * @param keys the cookie keys (server/oauth/keys.ts cookieKeys), newest first; null until the server has started
 */
export function grantsPageRouter(
  keys: () => string[] | null,
  deps: { tenancy: TenancyStore; oauth: OAuthStore; limits: SignInLimits },
  log: Logger,
): Router {
  const r = express.Router();
  const form = express.urlencoded({ extended: false, limit: '8kb' });
  const signIn = operatorSignIn(deps, log);

  const jar = (req: Request, res: Response): Cookies => new Cookies(req, res, { keys: new Keygrip(keys() ?? [], 'sha256') });
  const cookieOpts = (req: Request): Cookies.SetOption => ({
    signed: true,
    httpOnly: true,
    sameSite: 'strict',
    secure: req.secure,
    path: req.baseUrl + '/grants',
    overwrite: true,
  });
  /** The tenant of a live session cookie, or null. */
  const session = (req: Request, res: Response): string | null => {
    const raw = jar(req, res).get(COOKIE, { signed: true });
    const m = raw ? /^([^.]+)\.(\d+)$/.exec(raw) : null;
    return m && Number(m[2]) > Date.now() ? m[1]! : null;
  };
  const page = async (req: Request, res: Response, tenantId: string | null, error: string | null, status = 200): Promise<void> => {
    const action = req.baseUrl + '/grants';
    if (!tenantId) return sendPage(res, status, 'Connected applications', signInBody(action, error), null);
    const workspaces = new Map((await deps.tenancy.workspacesOfTenant(tenantId)).map((w) => [w.id, w.name]));
    sendPage(res, status, 'Connected applications', grantsBody(action, await listGrants(deps.tenancy, tenantId), workspaces, error), null);
  };
  const post = (fn: (req: Request, res: Response) => Promise<void>) => [
    form,
    (req: Request, res: Response): void => {
      if (!sameOrigin(req)) return void res.status(403).type('text').send('cross-site form submission refused');
      void fn(req, res).catch((err: unknown) => {
        log.error({ err }, 'grants page failed');
        if (!res.headersSent) sendPage(res, 500, 'Error', '<h1>Something went wrong</h1><p>Try again.</p>', null);
      });
    },
  ];

  r.get('/grants', (req, res) => void page(req, res, session(req, res), null));
  r.post(
    '/grants/login',
    ...post(async (req, res) => {
      const out = await signIn.signIn((req.body ?? {}) as SignInForm, req.socket.remoteAddress ?? 'unknown', { page: 'grants' });
      if (!('tenantId' in out)) return page(req, res, null, out.message, out.status);
      jar(req, res).set(COOKIE, `${out.tenantId}.${Date.now() + GRANTS_SESSION_MS}`, { ...cookieOpts(req), maxAge: GRANTS_SESSION_MS });
      res.redirect(303, req.baseUrl + '/grants');
    }),
  );
  r.post(
    '/grants/logout',
    ...post(async (req, res) => {
      jar(req, res).set(COOKIE, null, cookieOpts(req));
      res.redirect(303, req.baseUrl + '/grants');
      return Promise.resolve();
    }),
  );
  r.post(
    '/grants/:grantId/revoke',
    ...post(async (req, res) => {
      const tenantId = session(req, res);
      if (!tenantId) return page(req, res, null, 'Your session has ended. Sign in again.', 401);
      const grantId = String(req.params.grantId);
      const outcome = await revokeGrant(deps.tenancy, deps.oauth, grantId, tenantId);
      if (outcome === 'not_found') return page(req, res, tenantId, 'No such grant.', 404);
      if (outcome === 'revoked') log.info({ grant_id: grantId, tenant_id: tenantId }, 'oauth grant revoked from the grants page');
      res.redirect(303, req.baseUrl + '/grants');
    }),
  );
  return r;
}

function signInBody(action: string, error: string | null): string {
  return `<h1>Connected applications</h1>
<p>Sign in to see and revoke the applications connected to your Atelier.</p>
${error ? `<p class="err" role="alert">${esc(error)}</p>` : ''}
${signInForms(action)}`;
}

function grantsBody(action: string, grants: GrantView[], workspaces: Map<string, string>, error: string | null): string {
  const rows = grants
    .map((g) => {
      const where = g.workspace_ids.map((id) => esc(workspaces.get(id) ?? id)).join(', ');
      const state = g.revoked_at
        ? `revoked ${esc(g.revoked_at.slice(0, 16).replace('T', ' '))} UTC`
        : `<form method="post" action="${esc(action)}/${encodeURIComponent(g.grant_id)}/revoke"><button type="submit" aria-label="Revoke ${esc(g.client)}">Revoke</button></form>`;
      return `<tr data-grant-id="${esc(g.grant_id)}"><td>${esc(g.client)}</td><td>${where}</td><td>${esc(g.created_at.slice(0, 16).replace('T', ' '))} UTC</td><td>${state}</td></tr>`;
    })
    .join('\n');
  return `<h1>Connected applications</h1>
${error ? `<p class="err" role="alert">${esc(error)}</p>` : ''}
${
  grants.length
    ? `<table><thead><tr><th>Application</th><th>Workspaces</th><th>Connected</th><th></th></tr></thead><tbody>
${rows}
</tbody></table>`
    : '<p>No application is connected.</p>'
}
<form method="post" action="${esc(action)}/logout"><button type="submit">Sign out</button></form>`;
}
