import { resultFromTaskOutcome, type TaskEnabledSession } from '@modelcontextprotocol/ext-tasks/client';
import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GeneratedAssetSchema } from '../../shared/schemas/generate.ts';
import { buildApp, type App } from '../../server/app.ts';
import { createLogger } from '../../server/log.ts';
import { startHttp, type HttpHandle } from '../../server/mcp/http.ts';
import { createTenant, type TenantBundle } from '../../server/tenancy/admin.ts';
import type { FakeApi } from '../fixtures/fake-image-apis.ts';
import { tempConfig } from './harness.ts';
import { useRemoteProviders } from './remote-providers.ts';
import { MODERN, modernClient, rawDispatchTo, taskSession } from './task-session.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ARGS = { style: 'photography', purpose: 'hero_bg', prompt: 'a linen texture, morning light', provider: 'openai' } as const;
const CALL = { action: 'asset_generate', args: ARGS };
/** How long a poll waits for a state that comes at a heartbeat (100 ms here) on a loaded machine: a bound, not a speed claim. */
const WAIT = { timeout: 30_000 };

/** Hold every request of `api` until `open()`: the provider is "still generating" for as long as the test wants. */
function hold(api: FakeApi): { open(): void } {
  let open!: () => void;
  api.gate = new Promise<void>((resolve) => (open = resolve));
  return { open };
}

/**
 * Issue 31 item 4: long generations as MCP tasks (`io.modelcontextprotocol/tasks`, revision 2026-07-28) for
 * clients that declare the extension, synchronous otherwise. Process A (the test server) runs the
 * generation; process B (a second App on the same data dir and database, with its own HTTP listener)
 * answers tasks/get and tasks/cancel from the database alone. The OpenAI fake holds its answer behind a gate.
 */
describe('svc_drafts asset_generate as a task of the Tasks extension', () => {
  const p = useRemoteProviders();
  let a: HttpHandle;
  let other: App;
  let b: HttpHandle;
  let outsider: TenantBundle;
  let key: string;
  const open: { client: Client; session?: TaskEnabledSession }[] = [];
  const onA = async (apiKey = key): Promise<TaskEnabledSession> => {
    const s = await taskSession(a.mcpUrl, apiKey);
    open.push(s);
    return s.session;
  };
  const onB = async (): Promise<TaskEnabledSession> => {
    const s = await taskSession(b.mcpUrl, key);
    open.push(s);
    return s.session;
  };
  const ledger = async (): Promise<{ assets: number; charges: number; held: number }> => ({
    assets: await p.srv.app.library.assets.maxSeq(p.scope),
    charges: (await p.credits.entries(p.scope)).length,
    held: await p.credits.held(p.scope),
  });

  beforeAll(async () => {
    a = await p.srv.listen();
    key = p.srv.tenant.api_key;
    other = await buildApp(tempConfig({ ATELIER_ENRICHMENT: '0' }, p.srv.config.dataDir), createLogger('silent'));
    b = await startHttp(other, createLogger('silent'), { host: '127.0.0.1', port: 0, mcp: true });
    outsider = await createTenant(other.library.tenancy, 'Outsider');
  });
  afterAll(async () => {
    for (const s of open) {
      await s.session?.close().catch(() => undefined);
      await s.client.close().catch(() => undefined);
    }
    await b?.close();
    await other?.close();
  });

  it('answers a task at once; it is working (on both processes) while the provider works, then holds the tool result', async () => {
    const session = await onA();
    expect(open[0]!.client.getServerCapabilities()?.extensions).toHaveProperty(['io.modelcontextprotocol/tasks']);
    const gate = hold(p.openai);
    const before = await ledger();
    const exec = await session.callTool('svc_drafts', CALL);
    expect(exec.kind).toBe('task');
    const id = exec.handle!.taskId;
    expect(id).toMatch(UUID);
    await expect.poll(() => p.openai.requests.length, WAIT).toBe(1);
    const elsewhere = await onB();
    expect((await elsewhere.task(id).snapshot()).status).toBe('working');
    // the generator's progress lines become the status message, on whichever process is asked
    await expect.poll(async () => (await elsewhere.task(id).snapshot()).statusMessage, WAIT).toMatch(/openai\/gpt-image-1\.5/);
    expect(await ledger()).toEqual({ ...before, held: 1 });

    gate.open();
    const { outcome } = await exec.settle();
    expect(outcome.status).toBe('completed');
    const result = resultFromTaskOutcome(outcome) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const asset = GeneratedAssetSchema.parse(result.structuredContent);
    expect(asset).toMatchObject({ provider: 'openai', model: 'gpt-image-1.5', credits_charged: 1 });
    expect(result.content.some((c) => c.type === 'text' && c.text.includes(`asset_id ${asset.asset_id}`))).toBe(true);
    // the asset is in the library, charged once; process B reads the same result
    const view = await p.c.call('svc_assets', 'view', { asset_id: asset.asset_id });
    expect(view.error).toBeUndefined();
    expect(await ledger()).toEqual({ assets: before.assets + 1, charges: before.charges + 1, held: 0 });
    expect((await p.credits.entries(p.scope)).at(-1)).toMatchObject({ asset_id: asset.asset_id, credits: 1 });
    const fromB = await elsewhere.task(id).result();
    expect(fromB.status === 'completed' && (fromB.result as CallToolResult).structuredContent).toEqual(result.structuredContent);
  });

  it('tasks/cancel while the provider works (on the same process, and on another): cancelled, provider request aborted, nothing charged or stored', async () => {
    const session = await onA();
    const elsewhere = await onB();
    for (const via of ['same process', 'other process'] as const) {
      p.openai.requests.length = 0;
      p.openai.aborted = 0;
      const gate = hold(p.openai);
      const before = await ledger();
      const exec = await session.callTool('svc_drafts', CALL);
      const id = exec.handle!.taskId;
      await expect.poll(() => p.openai.requests.length, WAIT).toBe(1);
      if (via === 'same process') await session.cancelTask(id);
      else await elsewhere.cancelTask(id);
      await expect.poll(() => p.openai.aborted, { ...WAIT, message: via }).toBe(1);
      await expect.poll(async () => (await elsewhere.task(id).snapshot()).status, { ...WAIT, message: via }).toBe('cancelled');
      expect((await session.task(id).snapshot()).statusMessage).toMatch(/nothing was generated or charged/);
      gate.open();
      expect(await ledger(), via).toEqual({ ...before, held: 0 });
      expect(p.openai.requests, via).toHaveLength(1);
      await exec.detach();
    }
  });

  it("another tenant's key cannot read, cancel or update the task (not found), and the task goes on", async () => {
    const session = await onA();
    const stranger = await onA(outsider.api_key);
    const gate = hold(p.openai);
    const exec = await session.callTool('svc_drafts', CALL);
    const id = exec.handle!.taskId;
    await expect(stranger.task(id).snapshot()).rejects.toMatchObject({ code: -32602 });
    await expect(stranger.cancelTask(id)).rejects.toMatchObject({ code: -32602 });
    await expect(stranger.task(id).update({})).rejects.toMatchObject({ code: -32602 });
    expect((await session.task(id).snapshot()).status).toBe('working');
    gate.open();
    expect((await exec.settle()).outcome.status).toBe('completed');
  });

  it("a tool error is the completed task's result, as the synchronous call returns it (budget_exceeded: nothing spent)", async () => {
    const session = await onA();
    await p.credits.setBudget(p.scope, 0);
    const exec = await session.callTool('svc_drafts', CALL);
    expect(exec.kind).toBe('task');
    const { outcome } = await exec.settle();
    const result = resultFromTaskOutcome(outcome) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ error: { code: 'budget_exceeded', field: 'args.provider' } });
    const sync = await p.c.call('svc_drafts', 'asset_generate', ARGS);
    expect(sync.structured).toEqual(result.structuredContent);
    expect(p.openai.requests).toHaveLength(0);
  });

  it('without the extension the call is synchronous as before, and task requests are refused with -32021', async () => {
    const plain = await modernClient(a.mcpUrl, key);
    open.push({ client: plain });
    const r = await plain.callTool({ name: 'svc_drafts', arguments: CALL });
    expect(r.isError).toBeFalsy();
    expect(GeneratedAssetSchema.parse(r.structuredContent)).toMatchObject({ provider: 'openai', credits_charged: 1 });
    // a 2025-era client (initialize, session) too
    const legacy = await p.c.call('svc_drafts', 'asset_generate', ARGS);
    expect(legacy.structured).toMatchObject({ provider: 'openai', credits_charged: 1 });
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientInfo': { name: 'plain', version: '0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const refused = await rawDispatchTo(b.mcpUrl, key)({ method: 'tasks/get', params: { taskId: 'x', _meta: envelope } });
    expect(refused).toMatchObject({
      kind: 'error',
      error: { code: -32021, data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } } },
    });
  });
});
