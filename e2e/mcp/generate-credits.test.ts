import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.ts';
import type { CreditStore } from '../../server/db/credits.ts';
import type { Scope } from '../../server/domain/scope.ts';
import { createLogger } from '../../server/log.ts';
import type { FakeApi } from '../fixtures/fake-image-apis.ts';
import { connectApp, type TestClient, type TestServer } from './harness.ts';
import { useRemoteProviders } from './remote-providers.ts';

const base = { style: 'photography', purpose: 'hero_bg' } as const;

describe('generation credits: exact charges, budgets, and holds across concurrent calls and server processes', () => {
  const p = useRemoteProviders();
  let gemini: FakeApi;
  let srv: TestServer;
  let c: TestClient;
  let credits: CreditStore;
  let scope: Scope;
  beforeAll(() => {
    ({ gemini, srv, c, credits, scope } = p);
  });

  it('credits: exact charge on success only, remaining reported; an exhausted budget refuses before any provider call', async () => {
    const used = await credits.used(scope);
    await credits.setBudget(scope, used + 3);
    const pro = await c.call('svc_drafts', 'asset_generate', {
      ...base,
      prompt: 'pro hero',
      provider: 'gemini',
      model: 'gemini-3-pro-image-preview',
    });
    expect(pro.structured).toMatchObject({ credits_charged: 2, remaining_credits: 1 });
    const again = await c.call('svc_drafts', 'asset_generate', {
      ...base,
      prompt: 'another pro hero',
      provider: 'gemini',
      model: 'gemini-3-pro-image-preview',
    });
    expect(again.error).toMatchObject({ code: 'budget_exceeded', field: 'args.model', details: { remaining_credits: 1, credit_cost: 2 } });
    expect(again.error!.message).toContain('gemini/gemini-3-pro-image-preview costs 2 credit(s) but 1 of');
    expect(gemini.requests).toHaveLength(1);
    const flash = await c.call('svc_drafts', 'asset_generate', { ...base, prompt: 'flash hero', provider: 'gemini' });
    expect(flash.structured).toMatchObject({ model: 'gemini-3.1-flash-image-preview', credits_charged: 1, remaining_credits: 0 });
    expect((await c.call('svc_drafts', 'asset_generate', { ...base, prompt: 'one more', provider: 'openai' })).error).toMatchObject({
      code: 'budget_exceeded',
    });
    const local = await c.call('svc_drafts', 'asset_generate', { ...base, prompt: 'free gradient' });
    expect(local.structured).toMatchObject({ provider: 'local', credits_charged: 0, remaining_credits: 0 });
    expect(await credits.used(scope)).toBe(used + 3);
  });

  it('concurrent generations cannot overspend: credits of calls in flight are held against the budget', async () => {
    await credits.setBudget(scope, (await credits.used(scope)) + 3);
    gemini.delayMs = 300;
    const pro = { ...base, prompt: 'pro', provider: 'gemini', model: 'gemini-3-pro-image-preview' };
    const [a, b] = await Promise.all([c.call('svc_drafts', 'asset_generate', pro), c.call('svc_drafts', 'asset_generate', pro)]);
    expect([a, b].filter((r) => !r.isError)).toHaveLength(1);
    expect([a, b].find((r) => r.isError)!.error).toMatchObject({ code: 'budget_exceeded' });
    expect(gemini.requests).toHaveLength(1);
    expect([a, b].find((r) => !r.isError)!.structured.remaining_credits).toBe(1);
  });

  it('holds are shared by every server process on the data dir, and released on failure', async () => {
    // A second App on the same SQLite file has its own generator, as an stdio server beside the HTTP one would.
    const second = await buildApp(srv.config, createLogger('silent'));
    const c2 = await connectApp(second, srv.tenant.api_key);
    try {
      await credits.setBudget(scope, (await credits.used(scope)) + 2);
      gemini.delayMs = 300;
      const pro = { ...base, prompt: 'pro elsewhere', provider: 'gemini', model: 'gemini-3-pro-image-preview' };
      const [a, b] = await Promise.all([c.call('svc_drafts', 'asset_generate', pro), c2.call('svc_drafts', 'asset_generate', pro)]);
      expect([a, b].filter((r) => !r.isError)).toHaveLength(1);
      const refused = [a, b].find((r) => r.isError)!;
      expect(refused.error).toMatchObject({ code: 'budget_exceeded', details: { held_credits: 2, remaining_credits: 0 } });
      expect(refused.error!.message).toContain('2 reserved by generations in progress');
      expect(gemini.requests).toHaveLength(1);
      expect(await credits.held(scope)).toBe(0);
      // a failed generation releases its hold: the budget is intact afterwards
      await credits.setBudget(scope, (await credits.used(scope)) + 1);
      gemini.script.push({
        status: 400,
        body: { error: { code: 400, message: 'Request contains an invalid argument.', status: 'INVALID_ARGUMENT' } },
      });
      const failed = await c2.call('svc_drafts', 'asset_generate', { ...base, prompt: 'fails', provider: 'gemini' });
      expect(failed.error).toMatchObject({ code: 'provider_failed' });
      expect(await credits.held(scope)).toBe(0);
      const ok = await c.call('svc_drafts', 'asset_generate', { ...base, prompt: 'works', provider: 'gemini' });
      expect(ok.structured).toMatchObject({ credits_charged: 1, remaining_credits: 0 });
    } finally {
      await c2.close();
      await second.close();
    }
  });
});
