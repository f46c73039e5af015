import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectBlobGarbage } from '../../server/storage/blob-gc.ts';
import { createTenant, type TenantBundle } from '../../server/tenancy/admin.ts';
import { waitForEnrichment } from './enrichment-helpers.ts';
import { blobShaOf, demoFile, startTestServer, type CallResult, type TestClient, type TestServer } from './harness.ts';

const FALCON = demoFile('images/nature/prairie_falcon.jpg').toString('base64');
const FIR = demoFile('images/nature/silver_fir.jpg').toString('base64');
const names = (r: CallResult): string[] => (r.structured.assets as { name: string }[]).map((a) => a.name);

describe('svc_asset_manage update and delete (lexical server)', () => {
  let srv: TestServer;
  let c: TestClient;
  let theme: string;
  let other: TenantBundle;
  let b: TestClient;
  beforeAll(async () => {
    srv = await startTestServer({ env: { ATELIER_ENRICHMENT: '0' } });
    c = await srv.connect();
    theme = srv.tenant.theme_id;
    other = await createTenant(srv.app.library.tenancy, 'Other tenant');
    b = await srv.connect(other.api_key);
  });
  afterAll(async () => srv.close());

  const importFalcon = async (client = c, filename = 'falcon.jpg'): Promise<string> => {
    const r = await client.call('svc_asset_import', 'import', {
      data: FALCON,
      mime_type: 'image/jpeg',
      filename,
      tags: ['bird'],
      alt_text: 'A falcon',
    });
    expect(r.error).toBeUndefined();
    return r.structured.asset_id as string;
  };

  it('updates user metadata, reindexes lexical search, and reports what changed', async () => {
    const id = await importFalcon();
    const r = await c.call('svc_asset_manage', 'update', {
      asset_id: id,
      alt_text: 'Prairie falcon on a sandstone ledge',
      tags: ['raptor', 'wildlife', 'raptor'],
      purpose: 'hero_bg',
      filename: 'hero-falcon.jpg',
    });
    expect(r.error).toBeUndefined();
    expect(r.structured).toMatchObject({
      id,
      name: 'hero-falcon.jpg',
      alt_text: 'Prairie falcon on a sandstone ledge',
      tags: ['raptor', 'wildlife'],
      purpose: 'hero_bg',
      category: 'background',
      subtype: 'hero-bg',
      user_fields: ['filename', 'alt_text', 'tags', 'purpose'],
      changed: ['filename', 'alt_text', 'tags', 'purpose', 'category', 'subtype'],
    });
    expect(r.text).toContain('Updated filename, alt_text, tags, purpose, category, subtype of hero-falcon.jpg');
    expect(names(await c.call('svc_asset_library', 'search', { theme_id: theme, mode: 'alt_text', query: 'sandstone' }))).toEqual([
      'hero-falcon.jpg',
    ]);
    expect(names(await c.call('svc_asset_library', 'search', { theme_id: theme, mode: 'tags', query: 'wildlife' }))).toEqual([
      'hero-falcon.jpg',
    ]);
    expect((await c.call('svc_asset_library', 'search', { theme_id: theme, mode: 'tags', query: 'bird' })).structured.total).toBe(0);
    expect(names(await c.call('svc_asset_library', 'search', { theme_id: theme, category: 'background', subtype: 'hero-bg' }))).toEqual([
      'hero-falcon.jpg',
    ]);
    // the same values again: nothing changes
    const again = await c.call('svc_asset_manage', 'update', { asset_id: id, alt_text: 'Prairie falcon on a sandstone ledge' });
    expect(again.structured.changed).toEqual([]);
    expect(again.text).toMatch(/^No change to hero-falcon.jpg/);
    // category change drops a subtype of the old category; alt_text null hands alt text back to enrichment
    const moved = await c.call('svc_asset_manage', 'update', { asset_id: id, category: 'lifestyle', alt_text: null });
    expect(moved.structured).toMatchObject({
      category: 'lifestyle',
      subtype: null,
      alt_text: null,
      user_fields: ['filename', 'tags', 'purpose'],
    });
    // a subtype without its category is meaningless: clearing the category clears both
    expect((await c.call('svc_asset_manage', 'update', { asset_id: id, subtype: 'scene' })).structured).toMatchObject({
      category: 'lifestyle',
      subtype: 'scene',
    });
    expect((await c.call('svc_asset_manage', 'update', { asset_id: id, category: null })).structured).toMatchObject({
      category: null,
      subtype: null,
    });
    // the word "machine" typed as alt text is the user's text, not the marker for "use the machine alt text"
    expect((await c.call('svc_asset_manage', 'update', { asset_id: id, alt_text: 'machine' })).structured).toMatchObject({
      alt_text: 'machine',
      user_fields: expect.arrayContaining(['alt_text']),
    });
    expect((await c.call('svc_assets', 'view', { asset_id: id })).structured).toMatchObject({ alt_text: 'machine' });
    await c.call('svc_asset_manage', 'delete', { asset_ids: [id] });
  });

  it('validates update args with field-level errors and scopes the asset id', async () => {
    const id = await importFalcon();
    const none = await c.call('svc_asset_manage', 'update', { asset_id: id });
    expect(none.error).toMatchObject({ code: 'invalid_argument', field: 'args.filename' });
    expect(none.error!.message).toContain('at least one of filename, alt_text, tags, purpose, category, subtype');
    const badSub = await c.call('svc_asset_manage', 'update', { asset_id: id, category: 'texture', subtype: 'hero-bg' });
    expect(badSub.error).toMatchObject({ code: 'invalid_argument', field: 'args.subtype' });
    const longTag = await c.call('svc_asset_manage', 'update', { asset_id: id, tags: ['x'.repeat(65)] });
    expect(longTag.error).toMatchObject({ code: 'invalid_argument', field: 'args.tags[0]' });
    const empty = await c.call('svc_asset_manage', 'update', { asset_id: id, alt_text: '  ' });
    expect(empty.error).toMatchObject({ code: 'invalid_argument', field: 'args.alt_text' });
    // subtype of another category than the stored one
    await c.call('svc_asset_manage', 'update', { asset_id: id, purpose: 'hero_bg' });
    const mismatch = await c.call('svc_asset_manage', 'update', { asset_id: id, subtype: 'logo' });
    expect(mismatch.error).toMatchObject({ code: 'invalid_argument', field: 'args.subtype' });
    // another tenant cannot update or delete it: not_found, and nothing changed
    const foreign = await b.call('svc_asset_manage', 'update', { asset_id: id, alt_text: 'hijacked' });
    expect(foreign.error).toMatchObject({ code: 'not_found', field: 'args.asset_id' });
    const del = await b.call('svc_asset_manage', 'delete', { asset_ids: [id] });
    expect(del.structured).toMatchObject({ deleted: [], not_found: [id] });
    const view = await c.call('svc_assets', 'view', { asset_id: id });
    expect(view.structured.alt_text).toBe('A falcon');
    const bad = await c.call('svc_asset_manage', 'delete', { asset_ids: [] });
    expect(bad.error).toMatchObject({ code: 'invalid_argument', field: 'args.asset_ids' });
    await c.call('svc_asset_manage', 'delete', { asset_ids: [id] });
  });

  it('deletes assets: gone from search and view, CDN URLs 404 (another tenant’s copy has its own URL), GC removes orphans', async () => {
    const http = await srv.listen();
    const falcon = await importFalcon();
    const fir = (await c.call('svc_asset_import', 'import', { data: FIR, mime_type: 'image/jpeg', filename: 'fir.jpg' })).structured
      .asset_id as string;
    const theirs = await importFalcon(b, 'their-falcon.jpg'); // same bytes, other tenant
    const before = (await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'fir' })).structured.assets as {
      id: string;
      url: string;
      thumbnail_url: string;
    }[];
    const firAsset = before.find((a) => a.id === fir)!;
    const falconUrl = (await c.call('svc_assets', 'view', { asset_id: falcon })).structured.url as string;
    // the sha256 a CDN URL's public key stands for, resolved while the assets still exist
    const shaOf = async (url: string): Promise<string> => blobShaOf(srv, url);
    const firSha = await shaOf(firAsset.url);
    const falconSha = await shaOf(falconUrl);
    expect((await fetch(firAsset.url)).status).toBe(200);

    const missing = '11111111-1111-4111-8111-111111111111';
    const r = await c.call('svc_asset_manage', 'delete', { asset_ids: [fir, missing, falcon, fir] });
    expect(r.error).toBeUndefined();
    expect(r.structured).toMatchObject({
      deleted: [
        { asset_id: fir, name: 'fir.jpg' },
        { asset_id: falcon, name: 'falcon.jpg' },
      ],
      not_found: [missing],
      still_served: [],
    });
    expect(r.text).toContain('Deleted 2 asset(s)');
    expect(r.text).toContain(`Not found in this workspace: ${missing}`);

    expect((await c.call('svc_asset_library', 'search', { theme_id: theme })).structured.total).toBe(0);
    expect((await c.call('svc_assets', 'view', { asset_id: fir })).error).toMatchObject({ code: 'not_found' });
    // deleting again is idempotent: not_found
    expect((await c.call('svc_asset_manage', 'delete', { asset_ids: [fir] })).structured).toMatchObject({ deleted: [], not_found: [fir] });
    // nothing of the tenant holds these keys any more: 404 at once, though the other tenant holds the falcon's bytes (at its own URL)
    expect((await fetch(firAsset.url)).status).toBe(404);
    expect((await fetch(firAsset.thumbnail_url)).status).toBe(404);
    expect((await fetch(falconUrl)).status).toBe(404);
    const theirView = await b.call('svc_assets', 'view', { asset_id: theirs });
    expect(theirView.error).toBeUndefined();
    expect(theirView.structured.url).not.toBe(falconUrl);
    expect((await fetch(theirView.structured.url as string)).status).toBe(200);
    expect(http.url.length).toBeGreaterThan(0);

    // GC: within the grace period nothing goes; after it, only unreferenced files go
    const blobs = srv.app.library.blobs;
    const referenced = (sha: string) => srv.app.library.assets.blobReferenced(sha);
    const fresh = await collectBlobGarbage({ blobs, referenced, graceMs: 3_600_000 });
    expect(fresh.removed).toBe(0);
    expect(fresh.kept_recent).toBeGreaterThan(0);
    const swept = await collectBlobGarbage({ blobs, referenced, graceMs: 3_600_000, now: Date.now() + 2 * 3_600_000 });
    expect(swept.removed).toBe(fresh.kept_recent);
    expect(await blobs.has(firSha)).toBe(false);
    expect(await blobs.has(falconSha)).toBe(true);
    const view = await b.call('svc_assets', 'view', { asset_id: theirs });
    expect(view.structured.preview_bytes).toBeGreaterThan(0);
    // re-importing the deleted bytes works and serves again
    const back = await c.call('svc_asset_import', 'import', { data: FIR, mime_type: 'image/jpeg', filename: 'fir.jpg' });
    expect(back.structured.deduplicated).toBe(false);
    expect((await fetch(back.structured.url as string)).status).toBe(200);
    expect(await blobs.has(firSha)).toBe(true);
  });

  it('is discoverable by former names and annotated as destructive', async () => {
    const d = await c.call('svc_discover', 'discover', { query: 'delete_asset' });
    expect(d.text).toContain('svc_asset_manage');
    const tools = await c.client.listTools();
    const t = tools.tools.find((x) => x.name === 'svc_asset_manage')!;
    // hints equal to MCP's defaults are left out of tools/list (readOnly false, destructive true, idempotent false, openWorld true)
    expect({ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true, ...t.annotations }).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    });
  });
});

describe('svc_asset_manage with enrichment', () => {
  it('re-embeds after an update (semantic search follows the new text) and keeps user alt text authoritative', async () => {
    const srv = await startTestServer();
    try {
      const c = await srv.connect();
      const theme = srv.tenant.theme_id;
      // a photo whose file carries no caption or keywords (the falcon's own XMP keywords say "raptors"): before
      // the update nothing about it says hawk
      const plain = demoFile('images/nature/silver_fir.jpg').toString('base64');
      const r = await c.call('svc_asset_import', 'import', { data: plain, mime_type: 'image/jpeg', filename: 'upload-0001.jpg' });
      const id = r.structured.asset_id as string;
      await waitForEnrichment(c, theme);
      const before = await c.call('svc_asset_library', 'search', { theme_id: theme, mode: 'semantic', query: 'hawk' });
      expect(before.structured.total).toBe(0);
      const u = await c.call('svc_asset_manage', 'update', {
        asset_id: id,
        alt_text: 'A prairie falcon perched on a rock',
        tags: ['bird', 'raptor'],
      });
      expect(u.error).toBeUndefined();
      const after = await waitForEnrichment(c, theme);
      expect(after[0]!.alt_text).toBe('A prairie falcon perched on a rock');
      const sem = await c.call('svc_asset_library', 'search', { theme_id: theme, mode: 'semantic', query: 'hawk' });
      expect(names(sem)).toEqual(['upload-0001.jpg']);
      // clearing the alt text restores machine alt text from enrichment
      const cleared = await c.call('svc_asset_manage', 'update', { asset_id: id, alt_text: null });
      expect(cleared.structured.alt_text).toBe('Upload');
    } finally {
      await srv.close();
    }
  });
});

describe('asset seq after deletion', () => {
  it('never reuses the seq of a deleted newest asset, so older cursors keep their snapshot', async () => {
    const srv = await startTestServer({ env: { ATELIER_ENRICHMENT: '0' } });
    try {
      const c = await srv.connect();
      const theme = srv.tenant.theme_id;
      const imp = async (file: string) =>
        (
          await c.call('svc_asset_import', 'import', {
            data: demoFile(`images/nature/${file}`).toString('base64'),
            mime_type: 'image/jpeg',
            filename: file,
          })
        ).structured.asset_id as string;
      await imp('silver_fir.jpg');
      const newest = await imp('prairie_falcon.jpg');
      const first = await c.call('svc_asset_library', 'search', { theme_id: theme, limit: 1 });
      expect(names(first)).toEqual(['prairie_falcon.jpg']);
      await c.call('svc_asset_manage', 'delete', { asset_ids: [newest] });
      await imp('wood_anemones.jpg'); // would take the deleted rowid without the high-water mark
      // the old cursor's snapshot holds the fir only (the falcon is gone; offsets shift, as with any deletion)
      const rest = await c.call('svc_asset_library', 'search', { theme_id: theme, limit: 50, cursor: first.structured.next_cursor });
      expect(rest.structured.total).toBe(1);
      expect(names(rest)).not.toContain('wood_anemones.jpg');
      const fresh = await c.call('svc_asset_library', 'search', { theme_id: theme });
      expect(names(fresh)).toEqual(['wood_anemones.jpg', 'silver_fir.jpg']);
    } finally {
      await srv.close();
    }
  });
});
