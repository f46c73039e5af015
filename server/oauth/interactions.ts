import express, { type Request, type Response, type Router } from 'express';
import type Provider from 'oidc-provider';
import type { OAuthStore } from '../db/ports/oauth-store.ts';
import type { TenancyStore } from '../db/ports/tenancy-store.ts';
import type { Logger } from '../log.ts';
import { createGrantKey } from '../tenancy/admin.ts';
import type { SignInLimits } from './limits.ts';
import { consentPage, loginPage, sendPage } from './pages.ts';
import { operatorSignIn, type SignInForm } from './sign-in.ts';

type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

/**
 * CSRF defence of the forms, besides the interaction cookie: oidc-provider binds each interaction uid to
 * its `_interaction` cookie (SameSite=Lax, so a cross-site POST arrives without it and `interactionDetails`
 * refuses); a POST whose Origin (or Sec-Fetch-Site) says another site is refused before that.
 */
export function sameOrigin(req: Request): boolean {
  const site = req.headers['sec-fetch-site'];
  if (typeof site === 'string' && site !== 'same-origin' && site !== 'none') return false;
  const origin = req.headers.origin;
  if (!origin || origin === 'null') return typeof site === 'string' || !origin;
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

/**
 * Atelier's sign-in and consent pages for oidc-provider interactions, mounted under the issuer path:
 * `GET /interaction/:uid` shows the page the prompt needs; `POST …/login` signs the operator in with an
 * operator account (name + password) or an API key of the tenant (the OAuth account is the tenant), under
 * the brute-force limits of limits.ts (429 while locked); `POST …/confirm` creates the grant for the chosen
 * workspaces (and its key-like row, `createGrantKey`); `POST …/abort` denies (`access_denied`).
 * Failed sign-ins are logged with the client address and client id, never the presented key.
 */
export function interactionsRouter(
  provider: () => Provider,
  deps: { tenancy: TenancyStore; oauth: OAuthStore; limits: SignInLimits },
  log: Logger,
): Router {
  const { tenancy } = deps;
  const signIn = operatorSignIn(deps, log);
  const r = express.Router();
  const form = express.urlencoded({ extended: false, limit: '8kb' });

  const clientOf = async (d: Details): Promise<{ name: string; redirectUri: string; origin: string | null }> => {
    const client = await provider().Client.find(String(d.params.client_id));
    const redirectUri = typeof d.params.redirect_uri === 'string' ? d.params.redirect_uri : '';
    const origin = URL.canParse(redirectUri) ? new URL(redirectUri).origin : null;
    return { name: client?.clientName ?? String(d.params.client_id), redirectUri, origin };
  };

  const render = async (req: Request, res: Response, d: Details, error: string | null, status = 200): Promise<void> => {
    const c = await clientOf(d);
    const action = `${req.baseUrl}/interaction/${d.uid}`;
    if (d.prompt.name === 'login') return sendPage(res, status, 'Sign in', loginPage(action, c.name, error), c.origin);
    const tenantId = d.session!.accountId;
    const workspaces = (await tenancy.workspacesOfTenant(tenantId)).filter((w) => w.status === 'active');
    const scopes = (typeof d.params.scope === 'string' ? d.params.scope : 'mcp').split(' ').filter(Boolean);
    sendPage(res, status, 'Allow access', consentPage(action, c, scopes, workspaces, error), c.origin);
  };

  // every failure here (unknown or expired interaction, missing cookie) answers a plain page, no detail
  const guard =
    (fn: (req: Request, res: Response) => Promise<void>) =>
    (req: Request, res: Response): void =>
      void fn(req, res).catch((err: unknown) => {
        log.warn({ err: (err as Error).message, path: req.path, remote: req.socket.remoteAddress }, 'oauth interaction refused');
        if (!res.headersSent)
          sendPage(res, 400, 'Sign-in expired', '<h1>This sign-in has expired</h1><p>Start again from the application.</p>', null);
      });

  r.get(
    '/interaction/:uid',
    guard(async (req, res) => render(req, res, await provider().interactionDetails(req, res), null)),
  );

  r.post(
    '/interaction/:uid/login',
    form,
    guard(async (req, res) => {
      if (!sameOrigin(req)) return void res.status(403).type('text').send('cross-site form submission refused');
      const d = await provider().interactionDetails(req, res);
      if (d.prompt.name !== 'login') throw new Error('not a login prompt');
      const address = req.socket.remoteAddress ?? 'unknown';
      const r = await signIn.signIn((req.body ?? {}) as SignInForm, address, { client_id: d.params.client_id });
      if (!('tenantId' in r)) return render(req, res, d, r.message, r.status);
      const tenantId = r.tenantId;
      await provider().interactionFinished(req, res, { login: { accountId: tenantId } }, { mergeWithLastSubmission: false });
    }),
  );

  r.post(
    '/interaction/:uid/confirm',
    form,
    guard(async (req, res) => {
      if (!sameOrigin(req)) return void res.status(403).type('text').send('cross-site form submission refused');
      const p = provider();
      const d = await p.interactionDetails(req, res);
      if (d.prompt.name !== 'consent') throw new Error('not a consent prompt');
      const raw = ((req.body ?? {}) as { workspace?: unknown }).workspace;
      const chosen = (Array.isArray(raw) ? raw : raw ? [raw] : []).filter((w): w is string => typeof w === 'string');
      const tenantId = d.session!.accountId;
      const own = new Set((await tenancy.workspacesOfTenant(tenantId)).filter((w) => w.status === 'active').map((w) => w.id));
      if (chosen.length === 0 || chosen.some((w) => !own.has(w)))
        return render(req, res, d, 'Choose at least one of your workspaces.', 400);
      const clientId = String(d.params.client_id);
      const grant = new p.Grant({ accountId: tenantId, clientId });
      const details = d.prompt.details as { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> };
      if (details.missingOIDCScope?.length) grant.addOIDCScope(details.missingOIDCScope.join(' '));
      for (const [resource, scopes] of Object.entries(details.missingResourceScopes ?? {}))
        grant.addResourceScope(resource, scopes.join(' '));
      const grantId = await grant.save();
      await createGrantKey(tenancy, tenantId, grantId, (await clientOf(d)).name, chosen);
      log.info({ grant_id: grantId, client_id: clientId, tenant_id: tenantId, workspaces: chosen.length }, 'oauth grant created');
      await p.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
    }),
  );

  r.post(
    '/interaction/:uid/abort',
    form,
    guard(async (req, res) => {
      if (!sameOrigin(req)) return void res.status(403).type('text').send('cross-site form submission refused');
      await provider().interactionFinished(
        req,
        res,
        { error: 'access_denied', error_description: 'the operator denied access' },
        { mergeWithLastSubmission: false },
      );
    }),
  );
  return r;
}
