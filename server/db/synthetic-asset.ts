import type { NewAsset } from './ports/asset-store.ts';

/**
 * A synthetic asset row for tests and benches that fill a library directly through `assets.insert`
 * (thousands of rows without the import pipeline): number `i` gives a stable UUID, sha256 `s<i>` and name
 * `a<i>.png`; a 1×1 PNG with no metadata, `source: 'seed'`, enrichment done. `overrides` replace any field.
 */
export function syntheticAsset(i: number, scope: { tenant_id: string; workspace_id: string }, overrides: Partial<NewAsset> = {}): NewAsset {
  return {
    id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    tenant_id: scope.tenant_id,
    workspace_id: scope.workspace_id,
    kind: 'image',
    format: 'png',
    mime_type: 'image/png',
    width: 1,
    height: 1,
    size_bytes: 1,
    sha256: `s${i}`,
    source_sha256: `s${i}`,
    converted_from: null,
    name: `a${i}.png`,
    name_words: null,
    alt_text: null,
    tags: [],
    purpose: null,
    category: null,
    subtype: null,
    user_fields: [],
    source: 'seed',
    source_url: null,
    provenance: null,
    enrichment_status: 'done',
    created_at: new Date().toISOString(),
    renditions: [],
    ...overrides,
  };
}
