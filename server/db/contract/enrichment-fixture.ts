import sharp from 'sharp';
import type { BlobStore } from '../../storage/blob-store.ts';
import type { AssetStore } from '../ports/asset-store.ts';
import { contractAsset } from './fixture.ts';

/**
 * TEST ONLY: store a 96×64 JPEG of one colour (`hex`, e.g. '#c02818') in `blobs` and insert an asset of
 * the contract scope named `name` (its words from the name) whose original it is, for enrichment to analyse.
 * @returns the asset's seq
 */
export async function importPhoto(blobs: BlobStore, assets: AssetStore, name: string, hex: string): Promise<number> {
  const bytes = await sharp({ create: { width: 96, height: 64, channels: 3, background: hex } })
    .jpeg()
    .toBuffer();
  const { sha256, sizeBytes } = await blobs.put(bytes);
  return assets.insert(
    contractAsset({
      name,
      name_words: name.replace(/\.jpg$/, '').replace(/-/g, ' '),
      sha256,
      size_bytes: sizeBytes,
      width: 96,
      height: 64,
    }),
  );
}

/**
 * TEST ONLY: wait until every seq's enrichment_status is settled (done, failed or skipped), polling every 20 ms.
 * @throws Error naming the statuses after `timeoutMs` ms
 */
export async function enrichmentSettled(assets: AssetStore, seqs: number[], timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const rows = await Promise.all(seqs.map((s) => assets.bySeq(s)));
    if (rows.every((r) => r && !['pending', 'running'].includes(r.enrichment_status))) return;
    if (Date.now() > until) throw new Error(`enrichment still running: ${rows.map((r) => r?.enrichment_status).join(', ')}`);
    await new Promise((res) => setTimeout(res, 20));
  }
}
