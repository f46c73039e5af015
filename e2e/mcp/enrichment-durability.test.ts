import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../server/app.ts';
import type { Config } from '../../server/config.ts';
import { createLogger } from '../../server/log.ts';
import { STATIC_MODEL_ID } from '../../server/providers/embedder-static.ts';
import { createTenant, type TenantBundle } from '../../server/tenancy/admin.ts';
import { waitForEnrichment } from './enrichment-helpers.ts';
import { closeTestDatabase, connectApp, demoFile, openTempConfig, type CallResult, type TestClient } from './harness.ts';

/** The tenant a first boot creates, which later boots on the same data dir reuse. */
type Owner = Pick<TenantBundle, 'api_key' | 'theme_id'>;

/** A server process on a data dir that outlives it: build, connect, close, build again (with the first boot's tenant). */
async function boot(config: Config, owner: Owner | null): Promise<{ app: App; c: TestClient; owner: Owner; theme: string }> {
  const app = await buildApp(config, createLogger('silent'));
  app.startWorkers();
  const o = owner ?? (await createTenant(app.library.tenancy, 'Durability'));
  const c = await connectApp(app, o.api_key);
  return { app, c, owner: o, theme: o.theme_id };
}

const PHOTOS = [
  'prairie_falcon',
  'silver_fir',
  'el_torcal_rocks',
  'cyclamen_persicum',
  'wood_anemones',
  'notocactus_minimus',
  'polemonium_reptans',
  'tanners_ridge',
];
const req = (r: CallResult) => r.structured.request as { mode: string; match: string; degraded_from: string | null };

describe('durable enrichment queue', () => {
  const dirs: string[] = [];
  const apps: App[] = [];
  afterEach(async () => {
    for (const a of apps.splice(0)) await a.close().catch(() => undefined);
    for (const d of dirs.splice(0)) {
      await closeTestDatabase(d);
      fs.rmSync(d, { recursive: true, force: true });
    }
  });

  it('finishes the jobs of a server that stopped mid-queue after a restart', async () => {
    const config = await openTempConfig({ ATELIER_ENRICHMENT_CONCURRENCY: '1' });
    dirs.push(config.dataDir);
    const first = await boot(config, null);
    // one after another: a lone tenant may not hold every import slot at once (per-tenant admission, issue 36)
    for (const p of PHOTOS) {
      const r = await first.c.call('svc_asset_import', 'import', {
        data: demoFile(`images/nature/${p}.jpg`).toString('base64'),
        mime_type: 'image/jpeg',
        filename: `${p}.jpg`,
      });
      expect(r.isError, r.text).toBe(false);
    }
    await first.app.close();
    // Precondition: the stop really interrupted the queue.
    const probe = await buildApp(config, createLogger('silent'));
    const left = (await probe.stores.jobs.pendingKind('analyze')) + (await probe.stores.jobs.pendingKind('embed_text'));
    await probe.close();
    expect(left).toBeGreaterThan(0);

    const second = await boot(config, first.owner);
    apps.push(second.app);
    const assets = await waitForEnrichment(second.c, second.theme);
    expect(assets).toHaveLength(PHOTOS.length);
    expect(assets.map((a) => a.enrichment_status)).toEqual(PHOTOS.map(() => 'done'));
    const r = await second.c.call('svc_asset_library', 'search', { theme_id: second.theme, mode: 'semantic', query: 'hawk' });
    expect((r.structured.assets as { name: string }[])[0]?.name).toBe('prairie_falcon.jpg');
  });

  it('retries jobs that failed in a previous process once the cause is gone', async () => {
    const config = await openTempConfig({ ATELIER_EMBEDDER: 'fail', ATELIER_ENRICHMENT_RETRY_BASE_MS: '10' });
    dirs.push(config.dataDir);
    const first = await boot(config, null);
    for (const p of PHOTOS.slice(0, 2)) {
      await first.c.call('svc_asset_import', 'import', {
        data: demoFile(`images/nature/${p}.jpg`).toString('base64'),
        mime_type: 'image/jpeg',
        filename: `${p}.jpg`,
      });
    }
    const failed = await waitForEnrichment(first.c, first.theme);
    expect(failed.map((a) => a.enrichment_status)).toEqual(['failed', 'failed']);
    await first.app.close();
    const second = await boot({ ...config, env: { ...config.env, ATELIER_EMBEDDER: 'static' } }, first.owner);
    apps.push(second.app);
    // the requeued jobs run in the background; the asset status stays 'failed' until they succeed
    let healed = await waitForEnrichment(second.c, second.theme);
    for (let i = 0; i < 300 && healed.some((a) => a.enrichment_status !== 'done'); i++) {
      await new Promise((res) => setTimeout(res, 100));
      healed = await waitForEnrichment(second.c, second.theme);
    }
    expect(healed.map((a) => a.enrichment_status)).toEqual(['done', 'done']);
    const r = await second.c.call('svc_asset_library', 'search', { theme_id: second.theme, mode: 'semantic', query: 'hawk' });
    expect(req(r)).toMatchObject({ mode: 'semantic', match: 'vector' });
    expect((r.structured.assets as { name: string }[])[0]?.name).toBe('prairie_falcon.jpg');
  });

  it('re-embeds in the background after a model change, degrading search until the new space is complete', async () => {
    // An OpenAI-compatible embeddings server: 16-d bag-of-hashed-words vectors, held until released.
    const requests: { auth: string | undefined; body: { model: string; input: string[]; encoding_format: string } }[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const fake = http.createServer((rq, rs) => {
      let raw = '';
      rq.on('data', (d: Buffer) => (raw += d.toString()));
      rq.on('end', () => {
        const body = JSON.parse(raw) as { model: string; input: string[]; encoding_format: string };
        requests.push({ auth: rq.headers.authorization, body });
        void gate.then(() => {
          const data = body.input.map((t, index) => {
            const v = new Array<number>(16).fill(0.01);
            for (const w of t.toLowerCase().match(/[a-z]+/g) ?? []) v[[...w].reduce((h, ch) => (h * 31 + ch.charCodeAt(0)) % 16, 7)]! += 1;
            return { object: 'embedding', index, embedding: v };
          });
          rs.writeHead(200, { 'content-type': 'application/json' }).end(
            JSON.stringify({ object: 'list', data, model: body.model, usage: { prompt_tokens: 1, total_tokens: 1 } }),
          );
        });
      });
    });
    await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
    try {
      const config = await openTempConfig();
      dirs.push(config.dataDir);
      const first = await boot(config, null);
      for (const p of PHOTOS.slice(0, 3)) {
        await first.c.call('svc_asset_import', 'import', {
          data: demoFile(`images/nature/${p}.jpg`).toString('base64'),
          mime_type: 'image/jpeg',
          filename: `${p}.jpg`,
        });
      }
      await waitForEnrichment(first.c, first.theme);
      const [staticSpace] = await first.app.stores.vectors.liveSpaces('asset_text');
      await first.app.close();

      const url = `http://127.0.0.1:${(fake.address() as AddressInfo).port}/v1`;
      const httpConfig = {
        ...config,
        env: {
          ...config.env,
          ATELIER_EMBEDDER: 'http' as const,
          ATELIER_EMBEDDINGS_URL: url,
          ATELIER_EMBEDDINGS_KEY: 'sk-test',
          ATELIER_EMBEDDINGS_MODEL: 'fake-embed',
          ATELIER_EMBEDDINGS_DIMENSIONS: 16,
        },
      };
      const second = await boot(httpConfig, first.owner);
      apps.push(second.app);
      const during = await second.c.call('svc_asset_library', 'search', { theme_id: second.theme, mode: 'semantic', query: 'falcon' });
      expect(req(during)).toMatchObject({ mode: 'all', degraded_from: 'semantic' });
      expect((during.structured.assets as { name: string }[])[0]?.name).toBe('prairie_falcon.jpg');

      release();
      const until = Date.now() + 30_000;
      let after: CallResult;
      do {
        await new Promise((r) => setTimeout(r, 50));
        after = await second.c.call('svc_asset_library', 'search', { theme_id: second.theme, mode: 'semantic', query: 'prairie falcon' });
      } while (req(after).degraded_from !== null && Date.now() < until);
      expect(req(after)).toMatchObject({ mode: 'semantic', match: 'vector', degraded_from: null });
      expect((after.structured.assets as { name: string }[])[0]?.name).toBe('prairie_falcon.jpg');
      expect(requests[0]).toMatchObject({ auth: 'Bearer sk-test', body: { model: 'fake-embed', encoding_format: 'float' } });
      // the old model's space is retired: the new one is the only live space
      expect(staticSpace).toMatchObject({ model_id: STATIC_MODEL_ID, dimensions: 100, status: 'ready' });
      expect(await second.app.stores.vectors.liveSpaces('asset_text')).toEqual([
        expect.objectContaining({ model_id: 'http:fake-embed', dimensions: 16, status: 'ready' }),
      ]);
    } finally {
      release();
      await new Promise((r) => fake.close(r));
    }
  });
});
