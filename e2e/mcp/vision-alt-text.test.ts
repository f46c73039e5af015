import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForEnrichment, type EnrichedAsset } from './enrichment-helpers.ts';
import { demoFile, startTestServer, type TestClient, type TestServer } from './harness.ts';

interface ChatBody {
  model: string;
  messages: { role: string; content: ({ type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } })[] }[];
}

/** An OpenAI-compatible chat-completions server that captions every image the same way (or fails). */
const seen: { auth: string | undefined; body: ChatBody }[] = [];
let failing = false;
const fake = http.createServer((req, res) => {
  let raw = '';
  req.on('data', (d: Buffer) => (raw += d.toString()));
  req.on('end', () => {
    seen.push({ auth: req.headers.authorization, body: JSON.parse(raw) as ChatBody });
    if (failing)
      return void res
        .writeHead(503, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: 'model overloaded' } }));
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: 'c1',
        object: 'chat.completion',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: '"A bird of prey perched on a sunlit rocky ledge."' },
            finish_reason: 'stop',
          },
        ],
      }),
    );
  });
});

describe('machine alt text from a vision-capable provider', () => {
  let srv: TestServer;
  let c: TestClient;
  let theme: string;
  beforeAll(async () => {
    await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
    srv = await startTestServer({
      env: {
        ATELIER_VISION_URL: `http://127.0.0.1:${(fake.address() as AddressInfo).port}/v1`,
        ATELIER_VISION_KEY: 'sk-vision',
        ATELIER_VISION_MODEL: 'vlm-1',
      },
    });
    c = await srv.connect();
    theme = srv.tenant.theme_id;
  });
  afterAll(async () => {
    await srv.close();
    await new Promise((r) => fake.close(r));
  });

  it('captions images without user alt text, sends the image as a JPEG data URL, and embeds the caption', async () => {
    await c.call('svc_asset_import', 'import', {
      data: demoFile('images/nature/prairie_falcon.jpg').toString('base64'),
      mime_type: 'image/jpeg',
      filename: 'DSC_0001.jpg',
    });
    await c.call('svc_asset_import', 'import', {
      data: demoFile('images/nature/silver_fir.jpg').toString('base64'),
      mime_type: 'image/jpeg',
      filename: 'DSC_0002.jpg',
      alt_text: 'Silver fir branches',
    });
    const assets = await waitForEnrichment(c, theme);
    const byName = new Map(assets.map((a: EnrichedAsset) => [a.name, a]));
    expect(byName.get('DSC_0001.jpg')!.alt_text).toBe('A bird of prey perched on a sunlit rocky ledge.');
    expect(byName.get('DSC_0002.jpg')!.alt_text).toBe('Silver fir branches');
    expect(seen).toHaveLength(1);
    expect(seen[0]!.auth).toBe('Bearer sk-vision');
    expect(seen[0]!.body.model).toBe('vlm-1');
    const image = seen[0]!.body.messages[0]!.content.find((p) => p.type === 'image_url') as { image_url: { url: string } };
    expect(image.image_url.url.startsWith('data:image/jpeg;base64,')).toBe(true);
    const meta = await sharp(Buffer.from(image.image_url.url.split(',')[1]!, 'base64')).metadata();
    expect(Math.max(meta.width, meta.height)).toBeLessThanOrEqual(1024);
    // the file's own description (XMP) goes with the image as context: it names what pixels cannot
    const prompt = seen[0]!.body.messages[0]!.content.find((p) => p.type === 'text') as { text: string };
    expect(prompt.text).toContain(
      "The file's own description, which may name what the picture cannot show: Prairie falcon female with eggs.",
    );
    // The file name says nothing; the caption is what semantic search finds.
    const r = await c.call('svc_asset_library', 'search', { theme_id: theme, mode: 'semantic', query: 'bird of prey on a rocky ledge' });
    expect((r.structured.assets as EnrichedAsset[])[0]?.name).toBe('DSC_0001.jpg');
  });

  it("falls back to the file's own caption, else to heuristic alt text, when the provider fails", async () => {
    failing = true;
    for (const file of ['tanners_ridge.jpg', 'el_torcal_rocks.jpg'])
      await c.call('svc_asset_import', 'import', {
        data: demoFile(`images/nature/${file}`).toString('base64'),
        mime_type: 'image/jpeg',
        filename: file,
      });
    const assets = await waitForEnrichment(c, theme);
    const ridge = assets.find((a) => a.name === 'tanners_ridge.jpg')!;
    expect(ridge.enrichment_status).toBe('done');
    // the description embedded in the file (XMP dc:description)
    expect(ridge.alt_text).toBe('Fall 2023 Week 3');
    // a file whose only description is the camera's "SONY DSC": heuristic alt text, the file name's words
    // (colours and orientation are facts, not words)
    expect(assets.find((a) => a.name === 'el_torcal_rocks.jpg')!.alt_text).toBe('El torcal rocks');
  });
});
