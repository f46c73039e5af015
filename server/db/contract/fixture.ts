import { createHash, randomUUID } from 'node:crypto';
import type { NewAsset } from '../ports/asset-store.ts';

/** What a contract suite needs from one implementation of a store port (the model: Keyv's `@keyv/test-suite`). */
export interface StoreFixture<S> {
  /** a store on a fresh, empty database */
  create: () => Promise<StoreHandle<S>>;
}

/** A store under test and the way to reach its database again. */
export interface StoreHandle<S> {
  store: S;
  /** another store on the same database through connections of its own, as a second server process has */
  open: () => Promise<S>;
}

/** The scopes the asset contracts use: tenant-a's workspaces `ws-a`, `ws-b`; tenant-b's `ws-c`. */
export const CONTRACT_SCOPE = { tenantId: 'tenant-a', workspaceId: 'ws-a' };
export const OTHER_WORKSPACE = { tenantId: 'tenant-a', workspaceId: 'ws-b' };
export const OTHER_TENANT = { tenantId: 'tenant-b', workspaceId: 'ws-c' };

let n = 0;
/** A new 1000×1000 JPEG asset row of `s` (default CONTRACT_SCOPE) with unique id and hashes and no text; `over` replaces any field. */
export function contractAsset(over: Partial<NewAsset> = {}, s: { tenantId: string; workspaceId: string } = CONTRACT_SCOPE): NewAsset {
  const k = `${++n} ${randomUUID()}`;
  const sha = (x: string): string => createHash('sha256').update(`${x} ${k}`).digest('hex');
  return {
    id: randomUUID(),
    tenant_id: s.tenantId,
    workspace_id: s.workspaceId,
    kind: 'image',
    format: 'jpeg',
    mime_type: 'image/jpeg',
    width: 1000,
    height: 1000,
    size_bytes: 1000,
    sha256: sha('o'),
    source_sha256: sha('s'),
    converted_from: null,
    name: 'untitled.jpg',
    name_words: null,
    alt_text: null,
    tags: [],
    purpose: null,
    category: null,
    subtype: null,
    user_fields: [],
    source: 'upload',
    source_url: null,
    provenance: null,
    enrichment_status: 'pending',
    created_at: '2026-03-01T10:00:00.000Z',
    renditions: [],
    ...over,
  };
}
