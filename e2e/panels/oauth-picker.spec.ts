import { createHash, randomBytes } from 'node:crypto';
import type { FrameLocator } from '@playwright/test';
import { expect, test } from './fixtures.ts';
import { authorizeUrl, b64url, discover, register, signInAndConsent, token } from './oauth-host.ts';
import { importNature } from './seed.ts';

const focused = (view: FrameLocator) => view.locator('[data-testid="picker-cell"][tabindex="0"]');

/**
 * Issue 37, done-when 1, last step: after the OAuth flow a host opens the picker with the access token
 * (no API key anywhere on the host's side), the user picks two photos, and the agent gets them in order.
 */
test('a connector signed in with OAuth opens the picker and gets the user’s choice in order', async ({ atelier }) => {
  const { tenant } = atelier;
  const nature = await importNature(atelier.client, tenant.workspace_id);
  expect(nature.length).toBeGreaterThan(2);

  const redirectUri = 'http://127.0.0.1:9/callback';
  const d = await discover(atelier.mcpUrl);
  const clientId = await register(d, redirectUri, 'OAuth test host');
  const verifier = b64url(randomBytes(32));
  const challenge = b64url(createHash('sha256').update(verifier).digest());
  const signIn = await atelier.page.context().newPage();
  const back = await signInAndConsent(signIn, authorizeUrl(d, clientId, redirectUri, challenge, 'st'), redirectUri, tenant.api_key, [
    'Test tenant',
  ]);
  await signIn.close();
  const exchanged = await token(d, {
    grant_type: 'authorization_code',
    code: back.searchParams.get('code')!,
    redirect_uri: redirectUri,
    client_id: clientId,
    code_verifier: verifier,
    resource: d.resource,
  });
  expect(exchanged.status, JSON.stringify(exchanged.json)).toBe(200);
  await atelier.authorize(exchanged.json.access_token!);

  const { view, result } = await atelier.open('svc_asset_select', 'select', { theme_id: tenant.theme_id });
  expect(result.isError).toBeFalsy();
  const sc = result.structuredContent as { picker_id: string; status: string; delivery: string };
  expect(sc).toMatchObject({ status: 'awaiting_user', delivery: 'panel' });
  await expect(view.getByTestId('match-count')).toHaveText(`${nature.length} assets`);

  await view.getByTestId('picker-search').focus();
  await view.getByTestId('picker-search').press('ArrowDown');
  const chosen: string[] = [];
  for (const key of ['ArrowRight', 'ArrowLeft']) {
    await focused(view).press(key);
    chosen.push((await focused(view).getAttribute('data-asset-id'))!);
    await focused(view).press(' ');
    await expect(focused(view).getByTestId('selection-badge')).toHaveText(String(chosen.length));
  }
  await focused(view).press('Enter');
  await expect(view.getByTestId('confirmed-list').locator('li')).toHaveCount(2);

  // the panel's submit and the agent's get_selection both went through with the token
  const state = await atelier.client.call('svc_asset_select', 'get_selection', { picker_id: sc.picker_id });
  expect(state.isError, state.text).toBe(false);
  expect(state.structured).toMatchObject({ picker_id: sc.picker_id, status: 'confirmed' });
  expect((state.structured.selection as { id: string }[]).map((s) => s.id)).toEqual(chosen);

  // and it was the token that carried them: once the grant is revoked, the host's next call is refused
  const rev = await fetch(d.revocation_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: exchanged.json.refresh_token!, token_type_hint: 'refresh_token', client_id: clientId }),
  });
  expect(rev.status).toBe(200);
  await expect(atelier.client.call('svc_asset_select', 'get_selection', { picker_id: sc.picker_id })).rejects.toThrow(
    /401|invalid or expired/,
  );
});
