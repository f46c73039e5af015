import type { TestClient } from './harness.ts';

/** The fields of a search result the enrichment tests look at. */
export interface EnrichedAsset {
  id: string;
  name: string;
  tags: string[];
  alt_text: string | null;
  relevance: number | null;
  enrichment_status: string;
  kind: string;
  orientation: string | null;
  matched_by: string[] | null;
}

/** Poll the public browse listing until no asset is pending or running (enrichment is asynchronous). */
export async function waitForEnrichment(c: TestClient, theme: string, timeoutMs = 90_000): Promise<EnrichedAsset[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = await c.call('svc_asset_library', 'search', { theme_id: theme, limit: 50 });
    const assets = r.structured.assets as EnrichedAsset[];
    if (assets.every((a) => a.enrichment_status !== 'pending' && a.enrichment_status !== 'running')) return assets;
    if (Date.now() > until)
      throw new Error(`enrichment still running: ${assets.map((a) => `${a.name}:${a.enrichment_status}`).join(', ')}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}
