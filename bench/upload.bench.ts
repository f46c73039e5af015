/**
 * The chunked upload channel through a real MCP client (in-memory transport, the same McpServer code path
 * as HTTP): per-chunk round trip (512 KiB raw → base64 → zod → staged part), `complete` (assemble +
 * sha256 + import) and end-to-end throughput for a 1.7 MB JPEG and a 24 MiB file staged as an attachment
 * (`import: false`, so the figure is the channel's, not image processing). Also the peak RSS growth.
 * Targets: chunk p95 ≤ 40 ms; staging throughput ≥ 20 MiB/s, so a 50 MiB video stays under ~3 s of
 * server time (the host's postMessage hop and the network come on top).
 */
import { randomBytes } from 'node:crypto';
import { demoFile, startTestServer } from '../e2e/mcp/harness.ts';
import { sha256 } from '../e2e/mcp/upload-helpers.ts';
import { chunkCount, chunkRange } from '../shared/upload-chunks.ts';
import { percentile, table } from './stats.ts';

export default async function uploadBench(): Promise<void> {
  const srv = await startTestServer();
  try {
    const c = await srv.connect();
    let rssPeak = process.memoryUsage().rss;
    const sample = (): void => void (rssPeak = Math.max(rssPeak, process.memoryUsage().rss));
    const rows: (string | number)[][] = [];
    const transfer = async (
      bytes: Buffer,
      name: string,
      importIt: boolean,
    ): Promise<{ chunkMs: number[]; completeMs: number; totalMs: number }> => {
      const t0 = performance.now();
      const b = await c.call('svc_asset_upload_app', 'begin', { filename: name, size_bytes: bytes.length, sha256: sha256(bytes) });
      if (b.isError) throw new Error(b.text);
      const id = b.structured.upload_id as string;
      const size = b.structured.chunk_size_bytes as number;
      const chunkMs: number[] = [];
      for (let i = 0; i < chunkCount(bytes.length, size); i++) {
        const { start, end } = chunkRange(bytes.length, size, i);
        const t = performance.now();
        const r = await c.call('svc_asset_upload_app', 'chunk', {
          upload_id: id,
          index: i,
          data: bytes.subarray(start, end).toString('base64'),
        });
        if (r.isError) throw new Error(r.text);
        chunkMs.push(performance.now() - t);
        sample();
      }
      const t1 = performance.now();
      const done = await c.call('svc_asset_upload_app', 'complete', { upload_id: id, import: importIt });
      if (done.isError) throw new Error(done.text);
      sample();
      return { chunkMs, completeMs: performance.now() - t1, totalMs: performance.now() - t0 };
    };
    const jpeg = demoFile('images/text/craft-beer.jpg');
    const cases = [
      ['clip.mp4', '24 MiB random bytes, staged (import false)', randomBytes(24 * 1024 * 1024), false],
      ['craft-beer.jpg', 'craft-beer.jpg 1.7 MB (6000×4000), imported', jpeg, true],
    ] as const;
    const growth: string[] = [];
    for (const [name, label, bytes, importIt] of cases) {
      const before = process.memoryUsage().rss;
      rssPeak = before;
      const r = await transfer(bytes, name, importIt);
      growth.push(`${name}: ${((rssPeak - before) / 1024 / 1024).toFixed(0)} MiB`);
      const mibs = bytes.length / 1024 / 1024 / (r.totalMs / 1000);
      rows.push([
        label,
        r.chunkMs.length,
        percentile(r.chunkMs, 50).toFixed(1),
        percentile(r.chunkMs, 95).toFixed(1),
        r.completeMs.toFixed(0),
        r.totalMs.toFixed(0),
        mibs.toFixed(1),
      ]);
    }
    table(['file', 'chunks', 'chunk p50 ms', 'chunk p95 ms', 'complete ms', 'total ms', 'MiB/s'], rows);
    process.stdout.write(`peak RSS growth per transfer (the import includes sharp decoding the image): ${growth.join('; ')}\n`);
  } finally {
    await srv.close();
  }
}
