import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cosine } from '../domain/search/sif.ts';
import { createHttpEmbedder } from './embedder-http.ts';
import { createStaticEmbedder, defaultWordVectorCacheDir } from './embedder-static.ts';

/** A local server speaking the OpenAI embeddings wire format, with switchable misbehaviour. */
let mode: 'ok' | 'error' | 'shape' | 'dims' | 'slow' | 'reversed' = 'ok';
const seen: { path: string; auth: string | undefined; body: { model: string; input: string[] } }[] = [];
const server = http.createServer((req, res) => {
  let raw = '';
  req.on('data', (d: Buffer) => (raw += d.toString()));
  req.on('end', () => {
    const body = JSON.parse(raw) as { model: string; input: string[] };
    seen.push({ path: req.url ?? '', auth: req.headers.authorization, body });
    const vec = (i: number, n = 4) => Array.from({ length: n }, (_, k) => (k === i % n ? 3 : 0));
    if (mode === 'error')
      return void res
        .writeHead(429, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: 'Rate limit reached', type: 'requests' } }));
    if (mode === 'shape')
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: [{ index: 0, vector: [1] }] }));
    if (mode === 'slow') return void setTimeout(() => res.end('{}'), 2000);
    const data = body.input.map((_, index) => ({ object: 'embedding', index, embedding: vec(index, mode === 'dims' ? 3 : 4) }));
    if (mode === 'reversed') data.reverse();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data, model: body.model }));
  });
});
let base = '';
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('createHttpEmbedder (OpenAI-compatible /v1/embeddings)', () => {
  const make = (timeoutMs = 1000) => createHttpEmbedder({ baseUrl: base, apiKey: 'sk-x', model: 'm-1', dimensions: 4, timeoutMs });

  it('posts the wire format, batches by 64, orders by index and L2-normalises', async () => {
    mode = 'reversed';
    seen.length = 0;
    const e = make();
    expect(e).toMatchObject({ modelId: 'http:m-1', dimensions: 4 });
    const texts = Array.from({ length: 70 }, (_, i) => `t${i}`);
    const out = await e.embed(texts);
    expect(seen.map((s) => s.body.input.length)).toEqual([64, 6]);
    expect(seen[0]).toMatchObject({ path: '/v1/embeddings', auth: 'Bearer sk-x', body: { model: 'm-1', encoding_format: 'float' } });
    expect(Array.from(out[1]!)).toEqual([0, 1, 0, 0]);
    expect(Array.from(out[66]!)).toEqual([0, 0, 1, 0]);
  });

  it.each([
    ['error', /answered 429: Rate limit reached/],
    ['shape', /unexpected shape/],
    ['dims', /returned 3 dimensions, configured 4/],
    ['slow', /timeout|abort/i],
  ] as const)('rejects a %s response with a clear error', async (m, pattern) => {
    mode = m;
    await expect(make(300).embed(['x'])).rejects.toThrow(pattern);
  });
});

describe('createStaticEmbedder (GloVe + SIF)', () => {
  it('loads the compact vectors and places related phrases closer than unrelated ones', async () => {
    const e = createStaticEmbedder({ cacheDir: defaultWordVectorCacheDir() });
    const [a, b, c, none] = await e.embed(['oak dining table', 'wooden kitchen table', 'fast racing automobile', 'zxqvw']);
    expect(a!.length).toBe(100);
    expect(Math.hypot(...a!)).toBeCloseTo(1, 4);
    expect(cosine(a!, b!)).toBeGreaterThan(cosine(a!, c!) + 0.3);
    expect(Array.from(none!).every((x) => x === 0)).toBe(true);
  });
});
