import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.ts';
import type { CreditStore } from '../../server/db/ports/credit-store.ts';
import type { Scope } from '../../server/domain/scope.ts';
import { createLogger } from '../../server/log.ts';
import type { FakeApi } from '../fixtures/fake-image-apis.ts';
import { connectApp, type TestClient, type TestServer } from './harness.ts';
import { resume, spawnCli, waitPaused } from './processes.ts';
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

  it('a process killed right after the asset commits has charged for it: the settlement is in the same transaction', async () => {
    const pd = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-pause-'));
    const used = await credits.used(scope);
    // A stdio server on the same data dir (and backends), generating through the same fake provider …
    const child = spawnCli(['serve', '--stdio'], {
      ATELIER_DATA_DIR: srv.config.dataDir,
      ATELIER_PORT: '0',
      ATELIER_API_KEY: srv.tenant.api_key,
      ATELIER_ENRICHMENT: '0',
      ATELIER_GEMINI_API_KEY: 'gm-test',
      ATELIER_GEMINI_BASE_URL: gemini.url,
      ATELIER_TEST_PAUSE_AT: 'generate-settle',
      ATELIER_TEST_PAUSE_DIR: pd,
    });
    // (21:9: bytes no earlier case made, since the fake's image depends on its size only — a new asset, not a duplicate)
    const send = (m: Record<string, unknown>): boolean => child.proc.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
    send({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    });
    send({ method: 'notifications/initialized' });
    send({
      id: 2,
      method: 'tools/call',
      params: {
        name: 'svc_drafts',
        arguments: { action: 'asset_generate', args: { ...base, prompt: 'killed after commit', provider: 'gemini', aspect_ratio: '21:9' } },
      },
    });
    try {
      // … has committed the asset and is killed before anything else runs.
      await waitPaused(pd, 'generate-settle');
      child.proc.kill('SIGKILL');
      await child.exited;
    } finally {
      resume(pd, 'generate-settle');
      fs.rmSync(pd, { recursive: true, force: true });
    }
    // The asset is there, and so is its charge (once: the retry path of settle charges nothing more).
    const charges = await credits.entries(scope);
    const last = charges[charges.length - 1];
    const row = last?.asset_id ? await srv.app.stores.assets.byId(scope, last.asset_id) : undefined;
    expect({ used: await credits.used(scope), prompt: row ? row.provenance!.prompt : null }).toEqual({
      used: used + 1,
      prompt: 'killed after commit',
    });
    expect(last).toMatchObject({ provider: 'gemini', credits: 1 });
    // and the hold went with the charge: nothing keeps blocking the budget
    expect(await credits.held(scope)).toBe(0);
  }, 120_000);
});
