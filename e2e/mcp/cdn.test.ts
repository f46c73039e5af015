import http from 'node:http';
import { basename } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.ts';
import { loadConfig } from '../../server/config.ts';
import { createLogger } from '../../server/log.ts';
import { startHttp } from '../../server/mcp/http.ts';
import { spawnCli } from './processes.ts';
import { backendEnv, blobShaOf, connectApp, demoFile, ON_S3, startTestServer, type TestClient, type TestServer } from './harness.ts';

/** Status of a plain GET with exactly these headers. */
function statusOf(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .on('error', reject);
  });
}

const FIR = demoFile('images/nature/silver_fir.jpg');

/** The CDN route on whichever blob store the run uses (local directory; S3 under `npm run test:scale`). */
describe('CDN route /a/<key>.<ext>', () => {
  let srv: TestServer;
  let c: TestClient;
  let url: string;
  let sha: string;
  let bytes: Buffer;
  beforeAll(async () => {
    srv = await startTestServer({ env: { ATELIER_ENRICHMENT: '0' } });
    await srv.listen();
    c = await srv.connect();
    const r = await c.call('svc_asset_import', 'import', { data: FIR.toString('base64'), mime_type: 'image/jpeg', filename: 'fir.jpg' });
    expect(r.error).toBeUndefined();
    url = r.structured.url as string;
    sha = await blobShaOf(srv, url);
    bytes = await srv.app.library.blobs.get(sha);
  });
  afterAll(async () => srv.close());

  it('serves the bytes with an immutable cache policy, the sha256 as ETag and a sandboxing CSP', async () => {
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(
      Object.fromEntries(
        ['content-type', 'content-length', 'etag', 'cache-control', 'accept-ranges', 'x-content-type-options'].map((h) => [
          h,
          res.headers.get(h),
        ]),
      ),
    ).toEqual({
      'content-type': 'image/jpeg',
      'content-length': String(bytes.length),
      etag: `"${sha}"`,
      'cache-control': 'public, max-age=31536000, immutable',
      'accept-ranges': 'bytes',
      'x-content-type-options': 'nosniff',
    });
    expect(res.headers.get('content-security-policy')).toContain('sandbox');
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('answers a matching If-None-Match with 304 and HEAD with the headers alone', async () => {
    // node:http, not fetch: fetch turns a conditional request into an end-to-end reload (Cache-Control: no-cache)
    expect(await statusOf(url, { 'if-none-match': `"${sha}"` })).toBe(304);
    expect(await statusOf(url, { 'if-none-match': '"other"' })).toBe(200);
    const head = await fetch(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(bytes.length));
    expect((await head.arrayBuffer()).byteLength).toBe(0);
  });

  it('serves single byte ranges (206), suffix ranges, and refuses unsatisfiable ones (416)', async () => {
    const part = await fetch(url, { headers: { range: 'bytes=100-199' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 100-199/${bytes.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(100, 200))).toBe(true);
    const tail = await fetch(url, { headers: { range: 'bytes=-50' } });
    expect(tail.status).toBe(206);
    expect(Buffer.from(await tail.arrayBuffer()).equals(bytes.subarray(bytes.length - 50))).toBe(true);
    const beyond = await fetch(url, { headers: { range: `bytes=${bytes.length}-` } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe(`bytes */${bytes.length}`);
  });

  it('answers 404 for unknown keys, unknown extensions and bytes no row references', async () => {
    const base = srv.app.library.urls.base();
    expect((await fetch(`${base}/a/AAAAAAAAAAAAAAAAAAAAAA.jpg`)).status).toBe(404);
    expect((await fetch(url.replace(/\.jpg$/, '.exe'))).status).toBe(404);
    const stray = await srv.app.library.blobs.put(Buffer.from('bytes no asset names'));
    expect((await fetch(`${base}/cdn/${stray.sha256}.png`)).status).toBe(404);
  });
});

describe.runIf(ON_S3)('CDN route on S3 with presigned delivery, and a refusing S3', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ env: { ATELIER_ENRICHMENT: '0', ATELIER_S3_DELIVERY: 'presign', ATELIER_S3_PRESIGN_TTL_S: '600' } });
    await srv.listen();
  });
  afterAll(async () => srv.close());

  it('redirects to a presigned URL that serves the bytes with the right Content-Type', async () => {
    const c = await srv.connect();
    const url = (await c.call('svc_asset_import', 'import', { data: FIR.toString('base64'), mime_type: 'image/jpeg', filename: 'fir.jpg' }))
      .structured.url as string;
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    const direct = res.headers.get('location')!;
    expect(direct).toMatch(/X-Amz-Signature=/);
    const body = await fetch(direct);
    expect(body.status).toBe(200);
    expect(body.headers.get('content-type')).toBe('image/jpeg');
    const sha = await blobShaOf(srv, url);
    expect(Buffer.from(await body.arrayBuffer()).equals(await srv.app.library.blobs.get(sha))).toBe(true);
  });

  it('a process whose S3 keys are refused answers /cdn with 503 and an import with a structured internal error', async () => {
    const c = await srv.connect();
    const url = (
      await c.call('svc_asset_import', 'import', {
        data: demoFile('images/text/craft-beer.jpg').toString('base64'),
        mime_type: 'image/jpeg',
      })
    ).structured.url as string;
    const env = {
      ...backendEnv(basename(srv.config.dataDir)),
      ATELIER_DATA_DIR: srv.config.dataDir,
      ATELIER_PORT: '0',
      ATELIER_LOG_LEVEL: 'silent',
      ATELIER_ENRICHMENT: '0',
      AWS_SECRET_ACCESS_KEY: 'wrong-secret-key-000000000000000000000000',
    };
    const app = await buildApp(loadConfig(env), createLogger('silent'));
    const http = await startHttp(app, createLogger('silent'), { host: '127.0.0.1', port: 0, mcp: false });
    try {
      const res = await fetch(`${http.url}${new URL(url).pathname}`);
      expect(res.status).toBe(503);
      expect(await res.text()).toBe('blob store unavailable');
      const bad = await connectApp(app, srv.tenant.api_key);
      const r = await bad.call('svc_asset_import', 'import', {
        data: demoFile('images/nature/cyclamen_persicum.jpg').toString('base64'),
        mime_type: 'image/jpeg',
        filename: 'cyclamen.jpg',
      });
      expect(r.isError).toBe(true);
      expect(r.error).toMatchObject({ code: 'internal' });
      await bad.close();
    } finally {
      await http.close();
      await app.close();
    }
  });

  it('a server refuses to start on a bucket that does not exist, naming the store and the S3 error', async () => {
    const env = {
      ...backendEnv('x'),
      ATELIER_DATA_DIR: srv.config.dataDir,
      ATELIER_PORT: '0',
      ATELIER_BLOB_STORE: 's3://atelier-no-such-bucket/x',
    };
    const r = await spawnCli(['serve', '--http'], env).exited;
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      'the blob store s3://atelier-no-such-bucket/x/ cannot be used (check ATELIER_BLOB_STORE (the bucket must exist)',
    );
    expect(r.stderr).toContain('NoSuchBucket (HTTP 404)');
  });
});
