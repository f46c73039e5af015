import { createHash, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AssetRow, AssetStore, NewAsset } from '../ports/asset-store.ts';
import { isUniqueViolation } from '../ports/errors.ts';
import type { StoreHandle } from './fixture.ts';

/** One asset store under test, plus what the contract needs that no port offers yet. */
export interface AssetStoreHandle extends StoreHandle<AssetStore> {
  /** TEST ONLY: record the machine alt text enrichment keeps for an asset (its own port comes later). */
  setMachineAltText: (seq: number, text: string) => Promise<void>;
}

/** A fresh database whose tenants `tenant-a` (workspaces `ws-a`, `ws-b`) and `tenant-b` (`ws-c`) exist. */
export interface AssetStoreFixture {
  create: () => Promise<AssetStoreHandle>;
}

const scope = { tenantId: 'tenant-a', workspaceId: 'ws-a' };
const otherWorkspace = { tenantId: 'tenant-a', workspaceId: 'ws-b' };
const otherTenant = { tenantId: 'tenant-b', workspaceId: 'ws-a' };

const sha = (s: string): string => createHash('sha256').update(s).digest('hex');
/** Any public blob key: 22 base64url characters (its value depends on the tenant's random secret). */
const KEY = expect.stringMatching(/^[A-Za-z0-9_-]{22}$/) as unknown as string;
/** The key the pre-issue-36 URLs used: the first 128 bits of the sha256, base64url. */
const oldKey = (sha256: string): string => Buffer.from(sha256.slice(0, 32), 'hex').toString('base64url');

let n = 0;
/** A new asset of `scope` (or the workspace given) with two renditions; every field can be overridden. */
function asset(over: Partial<NewAsset> = {}, s = scope): NewAsset {
  const k = ++n;
  return {
    id: randomUUID(),
    tenant_id: s.tenantId,
    workspace_id: s.workspaceId,
    kind: 'image',
    format: 'jpeg',
    mime_type: 'image/jpeg',
    width: 1200,
    height: 800,
    size_bytes: 345678,
    sha256: sha(`original ${k}`),
    source_sha256: sha(`source ${k}`),
    converted_from: null,
    name: `photo-${k}.jpg`,
    name_words: 'photo',
    alt_text: null,
    tags: ['red', 'shoe'],
    purpose: null,
    category: null,
    subtype: null,
    user_fields: ['tags'],
    source: 'import_url',
    source_url: 'https://example.com/a.jpg',
    provenance: null,
    enrichment_status: 'pending',
    created_at: `2026-03-01T10:00:${String(k % 60).padStart(2, '0')}.123Z`,
    // inserted out of order; read back by role, then width (which is not the width order)
    renditions: [
      { role: 'webp', width: 1280, height: 853, format: 'webp', sha256: sha(`webp-l ${k}`), size_bytes: 83456 },
      { role: 'thumbnail', width: 320, height: 213, format: 'webp', sha256: sha(`thumb ${k}`), size_bytes: 5432 },
      { role: 'webp', width: 640, height: 427, format: 'webp', sha256: sha(`webp ${k}`), size_bytes: 23456 },
      { role: 'fallback', width: 1200, height: 800, format: 'jpeg', sha256: sha(`fallback ${k}`), size_bytes: 123456 },
    ],
    ...over,
  };
}

/** The row an inserted asset must read back as: the same plain values, lists as arrays. */
function rowOf(a: NewAsset, seq: number): AssetRow {
  const { renditions: _r, ...rest } = a;
  return { ...rest, seq, blob_key: KEY, auto_tags: [], ocr_text: null, processing_status: 'ready' };
}

/**
 * The behaviour every `AssetStore` must have, as vitest cases: the exact row shapes (plain values), scoping of
 * every scoped method (another workspace or tenant behaves as missing), the dedupe key and its unique
 * violation under concurrent writers of two processes, seqs never reused, metadata updates (with the
 * machine alt text), deletion, blob references and public blob keys, the change log head, browse filters and
 * order, and the name-words backfill.
 */
export function assetStoreContract(name: string, f: AssetStoreFixture): void {
  describe(`AssetStore contract: ${name}`, () => {
    it('reads an inserted asset back with the exact row and rendition shapes, only in its scope', async () => {
      const { store } = await f.create();
      const provenance = { prompt: 'a red shoe', credit_cost: 2, reference_images: ['https://example.com/r.png'], mask_url: null };
      const a = asset({ provenance, alt_text: 'A red shoe', width: null, height: null });
      const seq = await store.insert(a);
      expect(seq).toBeGreaterThan(0);
      expect(await store.byId(scope, a.id.toUpperCase())).toStrictEqual(rowOf(a, seq));
      expect(await store.bySeq(seq)).toStrictEqual(rowOf(a, seq));
      expect(await store.bySourceSha(scope, a.source_sha256)).toStrictEqual(rowOf(a, seq));
      expect(await store.byStoredSha(scope, a.sha256)).toStrictEqual(rowOf(a, seq));
      expect(await store.byName(scope, a.name)).toStrictEqual([rowOf(a, seq)]);
      expect(await store.bySeqs(scope, [seq])).toStrictEqual([rowOf(a, seq)]);
      const [webpL, thumb, webpS, fallback] = a.renditions.map((r) => ({ asset_seq: seq, ...r, blob_key: KEY }));
      expect(await store.renditions(seq)).toStrictEqual([fallback, thumb, webpS, webpL]);
      for (const s of [otherWorkspace, otherTenant]) {
        expect(await store.byId(s, a.id)).toBeUndefined();
        expect(await store.bySourceSha(s, a.source_sha256)).toBeUndefined();
        expect(await store.byStoredSha(s, a.sha256)).toBeUndefined();
        expect(await store.byName(s, a.name)).toEqual([]);
        expect(await store.bySeqs(s, [seq])).toEqual([]);
        expect(await store.maxSeq(s)).toBe(0);
        expect(await store.ownsBlob(s, a.sha256)).toBe(false);
      }
      expect(await store.byId(scope, randomUUID())).toBeUndefined();
      expect(await store.bySeq(seq + 1000)).toBeUndefined();
    });

    it('refuses a second asset of the same source bytes in a workspace (nothing written), not in another', async () => {
      const { store } = await f.create();
      const a = asset();
      await store.insert(a);
      const dup = asset({ source_sha256: a.source_sha256 });
      const err = await store.insert(dup).then(
        () => null,
        (e: unknown) => e,
      );
      expect(isUniqueViolation(err)).toBe(true);
      expect(await store.byId(scope, dup.id)).toBeUndefined();
      expect(await store.blobReferenced(dup.renditions[0]!.sha256)).toBe(false);
      const elsewhere = asset({ source_sha256: a.source_sha256 }, otherWorkspace);
      const seq = await store.insert(elsewhere);
      expect((await store.bySourceSha(otherWorkspace, a.source_sha256))!.seq).toBe(seq);
      expect(isUniqueViolation(new Error('other'))).toBe(false);
    });

    it('of concurrent imports of the same bytes from two processes exactly one wins', async () => {
      const { store, open } = await f.create();
      const other = await open();
      const source = sha('raced');
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) => (i % 2 ? store : other).insert(asset({ source_sha256: source }))),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results) if (r.status === 'rejected') expect(isUniqueViolation(r.reason)).toBe(true);
      expect(await store.byName(scope, (await store.bySourceSha(scope, source))!.name)).toHaveLength(1);
    });

    it('seqs grow, are never reused after a delete, and maxSeq is the scope’s', async () => {
      const { store, open } = await f.create();
      expect(await store.maxSeq(scope)).toBe(0);
      const s1 = await store.insert(asset());
      const s2 = await (await open()).insert(asset());
      const s3 = await store.insert(asset({}, otherWorkspace));
      expect(s2).toBeGreaterThan(s1);
      expect(s3).toBeGreaterThan(s2);
      expect(await store.maxSeq(scope)).toBe(s2);
      expect(await store.maxSeq(otherWorkspace)).toBe(s3);
      expect(await store.deleteMany(otherWorkspace, [s3])).toBe(1);
      const s4 = await store.insert(asset());
      expect(s4).toBeGreaterThan(s3);
      expect(await store.maxSeq(otherWorkspace)).toBe(0);
    });

    it('recentScopes lists the workspaces holding assets, the newest asset first', async () => {
      const { store } = await f.create();
      expect(await store.recentScopes(5)).toEqual([]);
      await store.insert(asset({}, otherWorkspace));
      await store.insert(asset());
      expect(await store.recentScopes(5)).toEqual([scope, otherWorkspace]);
      await store.insert(asset({}, otherWorkspace));
      expect(await store.recentScopes(5)).toEqual([otherWorkspace, scope]);
      expect(await store.recentScopes(1)).toEqual([otherWorkspace]);
    });

    it('bySeqs and cardsBySeqs keep the order given and drop missing or foreign seqs; a card holds the narrowest thumbnail', async () => {
      const { store } = await f.create();
      const a = asset();
      const b = asset({ renditions: [] });
      const sa = await store.insert(a);
      const sb = await store.insert(b);
      const sc = await store.insert(asset({}, otherWorkspace));
      expect((await store.bySeqs(scope, [sb, sc, 999999, sa])).map((r) => r.seq)).toEqual([sb, sa]);
      expect(await store.bySeqs(scope, [])).toEqual([]);
      const cards = await store.cardsBySeqs(scope, [sb, sc, 999999, sa]);
      expect(cards.map((c) => c.seq)).toEqual([sb, sa]);
      // the card's columns are the full row's; its thumbnail is the narrowest thumbnail rendition
      const row = (await store.bySeq(sa))!;
      const { seq, id, kind, format, width, height, name, alt_text, tags, auto_tags, purpose, category, subtype, enrichment_status } = row;
      expect(cards[1]).toStrictEqual({
        ...{ seq, id, kind, format, width, height, name, alt_text, tags, auto_tags, purpose, category, subtype, enrichment_status },
        key: row.blob_key,
        thumbnail: { key: (await store.renditions(seq)).find((x) => x.role === 'thumbnail')!.blob_key, format: 'webp' },
      });
      expect(cards[0]!.thumbnail).toBeNull();
      const two = asset({
        renditions: [
          { role: 'thumbnail', width: 320, height: 213, format: 'webp', sha256: sha('wide thumb'), size_bytes: 5432 },
          { role: 'thumbnail', width: 160, height: 107, format: 'jpeg', sha256: sha('narrow thumb'), size_bytes: 2100 },
        ],
      });
      const st = await store.insert(two);
      const narrow = (await store.renditions(st)).find((x) => x.sha256 === sha('narrow thumb'))!.blob_key;
      expect((await store.cardsBySeqs(scope, [st]))[0]!.thumbnail).toEqual({ key: narrow, format: 'jpeg' });
      expect(await store.cardsBySeqs(scope, [])).toEqual([]);
    });

    it('cardsBySeqs reads what was written since the last read: here, through another connection, and deletions', async () => {
      const { store, open } = await f.create();
      const other = await open();
      const [sa, sb] = [await store.insert(asset({ alt_text: 'first' })), await store.insert(asset({ alt_text: 'second' }))];
      const m = { name: 'n.jpg', name_words: 'n', tags: [], purpose: null, category: null, subtype: null, user_fields: ['alt_text'] };
      expect((await store.cardsBySeqs(scope, [sa, sb])).map((c) => c.alt_text)).toEqual(['first', 'second']);
      await store.updateMetadata(scope, sa, { ...m, alt_text: 'first, edited here' });
      expect((await store.cardsBySeqs(scope, [sa, sb])).map((c) => c.alt_text)).toEqual(['first, edited here', 'second']);
      await other.updateMetadata(scope, sb, { ...m, alt_text: 'second, edited by another process' });
      expect((await store.cardsBySeqs(scope, [sa, sb])).map((c) => c.alt_text)).toEqual([
        'first, edited here',
        'second, edited by another process',
      ]);
      await other.deleteMany(scope, [sa]);
      expect((await store.cardsBySeqs(scope, [sa, sb])).map((c) => c.seq)).toEqual([sb]);
      // a card read under its scope is not handed to another
      expect(await store.cardsBySeqs(otherWorkspace, [sb])).toEqual([]);
    });

    it('updateMetadata replaces the user metadata in scope only, and takes the machine alt text on request', async () => {
      const { store, setMachineAltText } = await f.create();
      const a = asset({ alt_text: 'user alt' });
      const seq = await store.insert(a);
      const m = {
        name: 'renamed.jpg',
        name_words: 'renamed',
        alt_text: 'new alt',
        tags: ['blue'],
        purpose: 'hero',
        category: 'banner',
        subtype: 'hero',
        user_fields: ['filename', 'alt_text'],
      };
      await store.updateMetadata(otherWorkspace, seq, m);
      await store.updateMetadata(otherTenant, seq, m);
      expect(await store.bySeq(seq)).toStrictEqual(rowOf(a, seq));
      await store.updateMetadata(scope, seq, m);
      expect(await store.bySeq(seq)).toStrictEqual({
        ...rowOf(a, seq),
        name: 'renamed.jpg',
        name_words: 'renamed',
        alt_text: 'new alt',
        tags: ['blue'],
        purpose: 'hero',
        category: 'banner',
        subtype: 'hero',
        user_fields: ['filename', 'alt_text'],
      });
      await store.updateMetadata(scope, seq, { ...m, alt_text: { machine: true } });
      expect((await store.bySeq(seq))!.alt_text).toBeNull();
      await setMachineAltText(seq, 'a blue banner');
      await store.updateMetadata(scope, seq, { ...m, alt_text: { machine: true } });
      expect((await store.bySeq(seq))!.alt_text).toBe('a blue banner');
      await store.updateMetadata(scope, seq, { ...m, alt_text: null });
      expect((await store.bySeq(seq))!.alt_text).toBeNull();
    });

    it('deleteMany deletes only the scope’s assets, with their renditions; blobs stop being referenced', async () => {
      const { store } = await f.create();
      const a = asset();
      const b = asset();
      const sa = await store.insert(a);
      const sb = await store.insert(b);
      expect(await store.deleteMany(otherWorkspace, [sa, sb])).toBe(0);
      expect(await store.deleteMany(otherTenant, [sa])).toBe(0);
      expect(await store.deleteMany(scope, [sa, 999999])).toBe(1);
      expect(await store.deleteMany(scope, [])).toBe(0);
      expect(await store.byId(scope, a.id)).toBeUndefined();
      expect(await store.renditions(sa)).toEqual([]);
      expect(await store.blobReferenced(a.sha256)).toBe(false);
      expect(await store.blobReferenced(a.renditions[0]!.sha256)).toBe(false);
      expect((await store.byId(scope, b.id))!.seq).toBe(sb);
    });

    it('blob references: any scope for blobReferenced, the scope’s for ownsBlob', async () => {
      const { store } = await f.create();
      const a = asset({ sha256: `abc1${'0'.repeat(60)}` });
      const b = asset({ sha256: `abc2${'0'.repeat(60)}` }, otherWorkspace);
      await store.insert(a);
      await store.insert(b);
      const thumb = a.renditions[1]!.sha256;
      expect(await store.blobReferenced(a.sha256)).toBe(true);
      expect(await store.blobReferenced(thumb)).toBe(true);
      expect(await store.blobReferenced(sha('nothing'))).toBe(false);
      expect(await store.ownsBlob(scope, a.sha256)).toBe(true);
      expect(await store.ownsBlob(scope, thumb)).toBe(true);
      expect(await store.ownsBlob(scope, b.sha256)).toBe(false);
      expect(await store.ownsBlob(otherWorkspace, b.sha256)).toBe(true);
    });

    it('public blob keys: one per blob and tenant, unrelated across tenants, looked up exactly, gone with the last row', async () => {
      const { store } = await f.create();
      const a = asset();
      const sa = await store.insert(a);
      // the same stored bytes in another workspace of the tenant, and in another tenant
      const sameTenant = await store.insert(asset({ sha256: a.sha256 }, otherWorkspace));
      const tenantB = { tenantId: 'tenant-b', workspaceId: 'ws-c' };
      const sb = await store.insert(asset({ sha256: a.sha256 }, tenantB));
      const keyA = (await store.bySeq(sa))!.blob_key;
      expect(keyA).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(keyA).not.toBe(oldKey(a.sha256));
      expect((await store.bySeq(sameTenant))!.blob_key).toBe(keyA);
      const keyB = (await store.bySeq(sb))!.blob_key;
      expect(keyB).not.toBe(keyA);
      expect(await store.blobByKey(keyA)).toEqual({ sha256: a.sha256, format: 'jpeg' });
      expect(await store.blobByKey(keyB)).toEqual({ sha256: a.sha256, format: 'jpeg' });
      const thumb = (await store.renditions(sa)).find((r) => r.role === 'thumbnail')!;
      expect(thumb.blob_key).not.toBe(keyA);
      expect(await store.blobByKey(thumb.blob_key)).toEqual({ sha256: thumb.sha256, format: 'webp' });
      expect(await store.blobByKey(oldKey(a.sha256))).toBeNull();
      expect(await store.blobByKey(keyA.toLowerCase() === keyA ? keyA.toUpperCase() : keyA.toLowerCase())).toBeNull();
      // the tenant's last row holding the key takes it away; the other tenant's key stays
      await store.deleteMany(scope, [sa]);
      expect(await store.blobByKey(keyA)).toEqual({ sha256: a.sha256, format: 'jpeg' });
      await store.deleteMany(otherWorkspace, [sameTenant]);
      expect(await store.blobByKey(keyA)).toBeNull();
      expect(await store.blobByKey(thumb.blob_key)).toBeNull();
      expect(await store.blobByKey(keyB)).toEqual({ sha256: a.sha256, format: 'jpeg' });
      expect(await store.backfillBlobKeys()).toBe(0);
    });

    it('the change head grows with every insert, update and delete of an asset', async () => {
      const { store } = await f.create();
      const h0 = await store.changeHead();
      const a = asset();
      const seq = await store.insert(a);
      const h1 = await store.changeHead();
      expect(h1).toBeGreaterThan(h0);
      await store.updateMetadata(scope, seq, { ...a, alt_text: 'x', name_words: 'x' });
      const h2 = await store.changeHead();
      expect(h2).toBeGreaterThan(h1);
      await store.deleteMany(scope, [seq]);
      expect(await store.changeHead()).toBeGreaterThan(h2);
    });

    it('searchSnapshot reads the scope’s maxSeq and the change head together', async () => {
      const { store } = await f.create();
      expect(await store.searchSnapshot(scope)).toEqual({ maxSeq: 0, changeHead: await store.changeHead() });
      const seq = await store.insert(asset());
      await store.insert(asset({}, otherWorkspace));
      const snap = await store.searchSnapshot(scope);
      expect(snap).toEqual({ maxSeq: seq, changeHead: await store.changeHead() });
      expect(snap.changeHead).toBeGreaterThan(0);
      expect((await store.searchSnapshot(otherWorkspace)).maxSeq).toBeGreaterThan(seq);
    });

    it('browse pages newest first under filters with the total, only in scope', async () => {
      const { store } = await f.create();
      const at = (s: number): string => `2026-03-02T00:00:${String(s).padStart(2, '0')}.000Z`;
      const wide = await store.insert(asset({ created_at: at(1), width: 2000, height: 1000, category: 'banner' }));
      const tall = await store.insert(asset({ created_at: at(2), width: 1000, height: 2000, category: 'banner', subtype: 'hero' }));
      const square = await store.insert(asset({ created_at: at(3), width: 1000, height: 1020, kind: 'svg' }));
      const sameTime = await store.insert(asset({ created_at: at(3), width: null, height: null }));
      await store.insert(asset({ created_at: at(9) }, otherWorkspace));
      const seqs = async (f: Parameters<AssetStore['browse']>[1], offset = 0, limit = 10): Promise<[number[], number]> => {
        const r = await store.browse(scope, f, offset, limit);
        return [r.rows.map((x) => x.seq), r.total];
      };
      expect(await seqs({})).toEqual([[sameTime, square, tall, wide], 4]);
      expect(await seqs({}, 1, 2)).toEqual([[square, tall], 4]);
      expect(await seqs({ category: 'banner' })).toEqual([[tall, wide], 2]);
      expect(await seqs({ category: 'banner', subtype: 'hero' })).toEqual([[tall], 1]);
      expect(await seqs({ kind: 'svg' })).toEqual([[square], 1]);
      expect(await seqs({ orientation: 'landscape' })).toEqual([[wide], 1]);
      expect(await seqs({ orientation: 'portrait' })).toEqual([[tall], 1]);
      expect(await seqs({ orientation: 'square' })).toEqual([[square], 1]);
      expect(await seqs({ maxSeq: tall })).toEqual([[tall, wide], 2]);
      expect(await seqs({ excludeSeq: square, maxSeq: square })).toEqual([[tall, wide], 2]);
      expect((await store.browse(scope, {}, 0, 1)).rows[0]).toStrictEqual(await store.bySeq(sameTime));
      expect(await store.browse(otherTenant, {}, 0, 10)).toEqual({ rows: [], total: 0 });
    });

    it('backfillNameWords fills the missing name words of every scope, once', async () => {
      const { store } = await f.create();
      const a = await store.insert(asset({ name: 'RedFox_0042.jpg', name_words: null }));
      const b = await store.insert(asset({ name: 'x.jpg', name_words: null }, otherWorkspace));
      const c = await store.insert(asset({ name_words: 'kept' }));
      expect(await store.backfillNameWords((name) => `words of ${name}`)).toBe(2);
      expect((await store.bySeq(a))!.name_words).toBe('words of RedFox_0042.jpg');
      expect((await store.bySeq(b))!.name_words).toBe('words of x.jpg');
      expect((await store.bySeq(c))!.name_words).toBe('kept');
      expect(await store.backfillNameWords(() => 'again')).toBe(0);
    });

    it('an asset written by one process is read, updated and deleted by another', async () => {
      const { store, open } = await f.create();
      const a = asset();
      const seq = await store.insert(a);
      const second = await open();
      expect(await second.byId(scope, a.id)).toStrictEqual(rowOf(a, seq));
      await second.updateMetadata(scope, seq, { ...a, alt_text: 'by the second', name_words: 'photo' });
      expect((await store.byId(scope, a.id))!.alt_text).toBe('by the second');
      expect(await second.deleteMany(scope, [seq])).toBe(1);
      expect(await store.byId(scope, a.id)).toBeUndefined();
    });
  });
}
