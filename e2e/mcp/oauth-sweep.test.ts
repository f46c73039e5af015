/**
 * Expired OAuth state is deleted by the background sweep (issue 37): authorization codes, sessions and
 * tokens read as absent once past their expiry, but without the sweep their rows would stay forever.
 */
import { describe, expect, it } from 'vitest';
import { queryDataDir, startTestServer } from './harness.ts';

describe('OAuth state sweep', () => {
  it('deletes rows past their expiry on the sweep timer and keeps live ones', async () => {
    const srv = await startTestServer({ env: { ATELIER_ENRICHMENT: '0', ATELIER_UPLOAD_SWEEP_MS: '50' } });
    try {
      const oauth = srv.app.stores.oauth;
      await oauth.upsert('AuthorizationCode', 'expired-code', { kind: 'AuthorizationCode' }, { expiresAt: Date.now() - 1000 });
      await oauth.upsert('Session', 'live-session', { kind: 'Session' }, { expiresAt: Date.now() + 3_600_000 });
      await oauth.upsert('Client', 'registered-client', { client_id: 'registered-client' }, { expiresAt: null });
      const ids = async (): Promise<string[]> =>
        (await queryDataDir<{ id: string }>(srv.config.dataDir, 'SELECT id FROM oauth_state ORDER BY id')).map((r) => r.id);
      const until = Date.now() + 10_000;
      while ((await ids()).includes('expired-code') && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      expect(await ids()).toEqual(['live-session', 'registered-client']);
    } finally {
      await srv.close();
    }
  });
});
