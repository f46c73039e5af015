/**
 * Child process of bench/import-rss.bench.ts (one fresh process per measurement, so earlier benches'
 * heap and malloc arenas do not blur the figure). Usage: `tsx bench/import-rss-child.ts <mode>` with
 * mode `upload` (the 6000×4000 demo JPEG through the chunked upload channel and `complete` with
 * import, enrichment on, OCR off), `once` or `per` (the bare sharp peers of bench/bare-renditions.ts on
 * the same file). Prints one JSON line: peak RSS growth in bytes over the RSS before the measured step.
 * Peak RSS is Linux VmHWM, reset before the step through /proc/self/clear_refs ("5").
 */
import fs from 'node:fs';
import { demoFile, startTestServer } from '../e2e/mcp/harness.ts';
import { uploadFile } from '../e2e/mcp/upload-helpers.ts';
import { bareDecodeOnce, bareDecodePerRendition } from './bare-renditions.ts';

const FILE = 'images/text/craft-beer.jpg';

function status(key: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync('/proc/self/status', 'utf8'));
  return Number(m![1]) * 1024;
}
/** Reset the peak to the current RSS and return it. */
function resetPeak(): number {
  fs.writeFileSync('/proc/self/clear_refs', '5');
  return status('VmRSS');
}
const peakSince = (before: number): number => status('VmHWM') - before;

async function main(mode: string): Promise<void> {
  const bytes = demoFile(FILE);
  const warm = demoFile('images/nature/silver_fir.jpg');
  if (mode === 'once' || mode === 'per') {
    const fn = mode === 'once' ? bareDecodeOnce : bareDecodePerRendition;
    await fn(warm);
    const before = resetPeak();
    await fn(bytes);
    process.stdout.write(`${JSON.stringify({ mode, import_peak_bytes: peakSince(before) })}\n`);
    return;
  }
  const srv = await startTestServer();
  try {
    const c = await srv.connect();
    const waitEnriched = async (id: string): Promise<void> => {
      for (;;) {
        const row = await srv.app.library.assets.byId({ tenantId: srv.tenant.tenant_id, workspaceId: srv.tenant.workspace_id }, id);
        if (row && row.enrichment_status !== 'pending' && row.enrichment_status !== 'running') return;
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    const w = await uploadFile(c, warm, 'warm.jpg');
    await waitEnriched((w.complete.structured.asset as { asset_id: string }).asset_id);
    const before = resetPeak();
    const up = await uploadFile(c, bytes, 'craft-beer.jpg');
    if (up.complete.isError) throw new Error(up.complete.text);
    const importPeak = peakSince(before);
    await waitEnriched((up.complete.structured.asset as { asset_id: string }).asset_id);
    process.stdout.write(`${JSON.stringify({ mode, import_peak_bytes: importPeak, with_enrichment_peak_bytes: peakSince(before) })}\n`);
  } finally {
    await srv.close();
  }
}

await main(process.argv[2] ?? 'upload');
