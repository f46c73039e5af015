import { EmptyResultSchema, ReadResourceResultSchema } from '@modelcontextprotocol/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestClient, type TestServer } from './harness.ts';

/** The JSON-RPC error code of a raw request, or null when it succeeded. Asserts nothing about the SDK's error classes. */
async function wireCode(
  c: TestClient,
  method: string,
  params: unknown,
  schema: typeof EmptyResultSchema | typeof ReadResourceResultSchema,
) {
  return c.client.request({ method, params } as never, schema, { timeout: 10_000 }).then(
    () => null,
    (e: unknown) => (e as { code?: unknown }).code,
  );
}

/** Issue 34 item 6: fuzzed protocol params answer -32602 Invalid params, not -32603 Internal error. */
describe('protocol edges', () => {
  let srv: TestServer;
  let c: TestClient;
  beforeAll(async () => {
    srv = await startTestServer({ env: { ATELIER_ENRICHMENT: '0' } });
    c = await srv.connect();
  });
  afterAll(() => srv.close());

  it('logging/setLevel with an unknown level → -32602; a known level is accepted', async () => {
    for (const level of ['verbose', 42, undefined])
      expect(await wireCode(c, 'logging/setLevel', { level }, EmptyResultSchema), String(level)).toBe(-32602);
    expect(await wireCode(c, 'logging/setLevel', { level: 'warning' }, EmptyResultSchema)).toBeNull();
  });

  it('resources/read of a string that is not a URI → -32602', async () => {
    for (const uri of ['not a uri', '', 7])
      expect(await wireCode(c, 'resources/read', { uri }, ReadResourceResultSchema), String(uri)).toBe(-32602);
  });

  it('the session still works afterwards', async () => {
    expect((await c.call('svc_discover', 'discover', { query: 'search_assets' })).isError).toBe(false);
  });
});
