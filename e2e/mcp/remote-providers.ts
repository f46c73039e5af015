import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { CreditStore } from '../../server/db/ports/credit-store.ts';
import type { Scope } from '../../server/domain/scope.ts';
import { startFakeGemini, startFakeOpenAi, type FakeApi } from '../fixtures/fake-image-apis.ts';
import { startTestServer, type TestClient, type TestServer } from './harness.ts';

/** What the generation tests share: the two provider fakes, the server configured for them, a client, credits. */
export interface RemoteProviders {
  openai: FakeApi;
  gemini: FakeApi;
  srv: TestServer;
  c: TestClient;
  credits: CreditStore;
  scope: Scope;
}

/**
 * TEST ONLY: register the hooks of a test file that generates through the openai and gemini providers:
 * local fakes speaking their wire formats (e2e/fixtures/fake-image-apis.ts), a server with both providers
 * enabled (openai models gpt-image-1.5 and gpt-image-2; 100 ms progress heartbeat; no enrichment), one
 * client; before each case the fakes' scripts, recordings, delays and gates are cleared and the budget lifted.
 * @returns the shared state, filled in by `beforeAll` (read it inside tests and hooks, not at module level)
 */
export function useRemoteProviders(): RemoteProviders {
  const s = {} as RemoteProviders;
  beforeAll(async () => {
    s.openai = await startFakeOpenAi({ apiKey: 'sk-test' });
    s.gemini = await startFakeGemini({ apiKey: 'gm-test' });
    s.srv = await startTestServer({
      env: {
        ATELIER_ENRICHMENT: '0',
        ATELIER_GENERATION_HEARTBEAT_MS: '100',
        ATELIER_OPENAI_API_KEY: 'sk-test',
        ATELIER_OPENAI_BASE_URL: s.openai.url,
        ATELIER_OPENAI_IMAGE_MODELS: 'gpt-image-1.5,gpt-image-2',
        ATELIER_GEMINI_API_KEY: 'gm-test',
        ATELIER_GEMINI_BASE_URL: s.gemini.url,
      },
    });
    s.c = await s.srv.connect();
    s.credits = s.srv.app.stores.credits;
    s.scope = { tenantId: s.srv.tenant.tenant_id, workspaceId: s.srv.tenant.workspace_id };
  });
  afterAll(async () => {
    await s.srv?.close();
    await s.openai?.close();
    await s.gemini?.close();
  });
  beforeEach(async () => {
    s.openai.requests.length = 0;
    s.openai.script.length = 0;
    s.openai.image.opaque = false;
    s.openai.gate = null;
    s.openai.aborted = 0;
    s.gemini.requests.length = 0;
    s.gemini.script.length = 0;
    s.gemini.delayMs = 0;
    s.gemini.gate = null;
    s.gemini.aborted = 0;
    await s.credits.setBudget(s.scope, null);
  });
  return s;
}
