import { CONTRACT_SCOPE, contractAsset, OTHER_TENANT, OTHER_WORKSPACE } from './fixture.ts';
import { describe, expect, it } from 'vitest';
import type { Scope } from '../../domain/scope.ts';
import type { AssetStore, NewAsset } from '../ports/asset-store.ts';
import { VectorSpaceRetiredError, type VectorStore } from '../ports/vector-store.ts';

/** A vector store and the asset store of the same fresh database (tenants and workspaces as in AssetStoreFixture). */
export interface VectorStoreHandle {
  vectors: VectorStore;
  assets: AssetStore;
  /** another vector store on the same database through connections of its own, as a second server process has */
  open: () => Promise<VectorStore>;
}

export interface VectorStoreFixture {
  create: () => Promise<VectorStoreHandle>;
}

const scope: Scope = CONTRACT_SCOPE;
const otherWorkspace: Scope = OTHER_WORKSPACE;
const otherTenant: Scope = OTHER_TENANT;
/** a workspace id of tenant-a under tenant-b: a forged scope that must see nothing */
const forged: Scope = { tenantId: 'tenant-b', workspaceId: 'ws-a' };

const asset = contractAsset;

const v = (...xs: number[]): Float32Array => Float32Array.from(xs);
/** Cosine of two vectors in float64. */
function cosine(a: Float32Array, b: Float32Array): number {
  let d = 0,
    na = 0,
    nb = 0;
  for (let i = 0; i < a.length; i++) {
    d += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return d / Math.sqrt(na * nb);
}
/** A unit vector of `dims` at `angle` radians from the first axis, in the plane of the first two. */
const at = (angle: number, dims = 4): Float32Array => {
  const out = new Float32Array(dims);
  out[0] = Math.cos(angle);
  out[1] = Math.sin(angle);
  return out;
};

/**
 * The behaviour every `VectorStore` must have: spaces (ensure, revive, status, retire), vectors put,
 * read, replaced and removed per asset of a scope, counts, the deterministic calibration sample, and
 * KNN nearest first with exact cosine similarities, scope isolation and every asset filter applied
 * inside the search (k hits come back when k assets pass), seen from a second process too.
 */
export function vectorStoreContract(name: string, f: VectorStoreFixture): void {
  describe(`VectorStore contract: ${name}`, () => {
    it('is available, and ensures, lists, promotes, retires and revives spaces', async () => {
      const { vectors, assets } = await f.create();
      expect(await vectors.available()).toEqual({ ok: true });
      expect(await vectors.liveSpaces('asset_text')).toEqual([]);
      const text = await vectors.ensureSpace('asset_text', 'model-a', 4, 'building');
      expect(text).toMatchObject({ purpose: 'asset_text', model_id: 'model-a', dimensions: 4, status: 'building' });
      expect(Number.isNaN(Date.parse(text.created_at))).toBe(false);
      expect(await vectors.ensureSpace('asset_text', 'model-a', 4, 'ready')).toMatchObject({ id: text.id, status: 'building' });
      const wide = await vectors.ensureSpace('asset_text', 'model-b', 6, 'ready');
      const visual = await vectors.ensureSpace('asset_visual', 'model-a', 4, 'ready');
      expect(new Set([text.id, wide.id, visual.id]).size).toBe(3);
      expect((await vectors.liveSpaces('asset_text')).map((s) => s.id)).toEqual([text.id, wide.id]);
      await vectors.setStatus(text, 'ready');
      expect((await vectors.liveSpaces('asset_text'))[0]).toMatchObject({ id: text.id, status: 'ready' });

      const seq = await assets.insert(asset({}));
      expect(await vectors.put(scope, text, seq, at(0))).toBe(true);
      await vectors.retire(text);
      expect((await vectors.liveSpaces('asset_text')).map((s) => s.id)).toEqual([wide.id]);
      const revived = await vectors.ensureSpace('asset_text', 'model-a', 4, 'building');
      expect(revived).toMatchObject({ purpose: 'asset_text', model_id: 'model-a', dimensions: 4, status: 'building' });
      expect((await vectors.liveSpaces('asset_text')).map((s) => s.id)).toEqual([wide.id, revived.id].sort((a, b) => a - b));
      // a revived space starts empty (the vectors of a retired model are gone) and takes vectors again
      expect(await vectors.get(scope, revived, seq)).toBeNull();
      expect(await vectors.count(scope, revived)).toBe(0);
      expect(await vectors.put(scope, revived, seq, at(0.5))).toBe(true);
      expect(await vectors.get(scope, revived, seq)).toEqual(at(0.5));
      await expect(vectors.ensureSpace('asset_text', 'model-c', 0, 'ready')).rejects.toThrow(/dimensions/);
    });

    it('revives a retired space through ensureSpace only (model A → B → A); setStatus refuses a retired space', async () => {
      const { vectors, assets, open } = await f.create();
      const seq = await assets.insert(asset({}));
      const a = await vectors.ensureSpace('asset_text', 'model-a', 4, 'ready');
      await vectors.put(scope, a, seq, at(0));
      // model B is built, promoted, and retires A
      const b = await vectors.ensureSpace('asset_text', 'model-b', 4, 'building');
      await vectors.put(scope, b, seq, at(0.1));
      await vectors.setStatus(b, 'ready');
      await vectors.retire(a);
      // a process still holding A cannot bring it back by its status: its vectors are gone
      const other = await open();
      for (const store of [vectors, other]) await expect(store.setStatus(a, 'ready')).rejects.toThrow(VectorSpaceRetiredError);
      expect(await vectors.liveSpaces('asset_text')).toEqual([{ ...b, status: 'ready' }]);
      // back to model A: revived empty as asked, rebuilt, promoted; B retired and refused in its turn
      const revived = await vectors.ensureSpace('asset_text', 'model-a', 4, 'building');
      expect(revived).toMatchObject({ id: a.id, status: 'building' });
      expect(await other.count(scope, revived)).toBe(0);
      expect(await vectors.put(scope, revived, seq, at(0.2))).toBe(true);
      await other.setStatus(revived, 'ready');
      await other.retire(b);
      await expect(vectors.setStatus(b, 'building')).rejects.toThrow(VectorSpaceRetiredError);
      expect(await vectors.liveSpaces('asset_text')).toEqual([{ ...revived, status: 'ready' }]);
      expect(await vectors.get(scope, revived, seq)).toEqual(at(0.2));
      expect(await other.count(scope, revived)).toBe(1);
      expect(await vectors.count(scope, b)).toBe(0);
    });

    it('refuses a put into a retired space with VectorSpaceRetiredError, also when the put races the retire', async () => {
      const { vectors, assets, open } = await f.create();
      const seqs: number[] = [];
      for (let i = 0; i < 8; i++) seqs.push(await assets.insert(asset({})));
      const other = await open();
      const space = await vectors.ensureSpace('asset_text', 'm', 4, 'ready');
      await other.retire(space);
      // retired by another process: the caller's SpaceRow still says ready
      await expect(vectors.put(scope, space, seqs[0]!, at(0))).rejects.toThrow(VectorSpaceRetiredError);
      await expect(vectors.put(scope, space, 987654, at(0))).rejects.toThrow(VectorSpaceRetiredError);
      await expect(vectors.put(scope, space, seqs[0]!, v(1, 2, 3))).rejects.toThrow(/3 dimensions/);
      // puts racing a retire: each lands before it (and goes with it) or is refused, never a database error
      const raced = await vectors.ensureSpace('asset_text', 'm2', 4, 'ready');
      const puts = (xs: number[]) => xs.map((seq) => vectors.put(scope, raced, seq, at(seq / 100)));
      const settled = await Promise.allSettled([...puts(seqs.slice(0, 4)), other.retire(raced), ...puts(seqs.slice(4))]);
      for (const r of settled)
        if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(VectorSpaceRetiredError);
        else expect([true, undefined]).toContain(r.value);
      expect(await vectors.count(scope, raced)).toBe(0);
      expect(await vectors.liveSpaces('asset_text')).toEqual([]);
    });

    it('reads a retired space as empty, here and in another process that had searched it, until it is revived', async () => {
      const { vectors, assets, open } = await f.create();
      const space = await vectors.ensureSpace('asset_text', 'm', 4, 'ready');
      const other = await open();
      const [one, two] = [await assets.insert(asset({})), await assets.insert(asset({}))];
      await vectors.put(scope, space, one, at(0));
      await vectors.put(scope, space, two, at(0.2));
      // the other process has counted and searched (SQLite: its partition is loaded)
      expect(await other.count(scope, space)).toBe(2);
      expect((await other.nearest(scope, space, at(0), 5, {})).map((h) => h.seq)).toEqual([one, two]);
      await vectors.retire(space);
      for (const store of [vectors, other]) {
        expect(await store.count(scope, space)).toBe(0);
        expect(await store.get(scope, space, one)).toBeNull();
        expect(await store.sample(scope, space, 10)).toEqual([]);
        expect(await store.nearest(scope, space, at(0), 5, {})).toEqual([]);
        await store.remove(scope, space, one);
      }
      // revived (empty): the other process sees the new vectors only, not the ones it had loaded
      const revived = await vectors.ensureSpace('asset_text', 'm', 4, 'building');
      expect(revived.id).toBe(space.id);
      expect(await other.count(scope, revived)).toBe(0);
      await vectors.put(scope, revived, one, at(0.3));
      expect(await other.count(scope, revived)).toBe(1);
      expect(await other.nearest(scope, revived, at(0), 5, {})).toEqual([{ seq: one, similarity: expect.closeTo(Math.cos(0.3), 5) }]);
      expect(await vectors.count(scope, revived)).toBe(1);
    });

    it('puts, reads exactly, replaces and removes the vector of an asset of the scope only', async () => {
      const { vectors, assets } = await f.create();
      const space = await vectors.ensureSpace('asset_visual', 'm', 4, 'ready');
      const seq = await assets.insert(asset({}));
      const theirs = await assets.insert(asset({}, otherWorkspace));
      const odd = v(0.1, -1e-7, 3.4028234663852886e38 / 1e30, 1 / 3);
      expect(await vectors.put(scope, space, seq, odd)).toBe(true);
      expect(await vectors.get(scope, space, seq)).toEqual(odd);
      expect(await vectors.put(scope, space, seq, v(1, 2, 3, 4))).toBe(true);
      expect(await vectors.get(scope, space, seq)).toEqual(v(1, 2, 3, 4));
      // another scope's asset, a missing asset: nothing written, nothing read
      expect(await vectors.put(scope, space, theirs, v(1, 0, 0, 0))).toBe(false);
      expect(await vectors.put(scope, space, 987654, v(1, 0, 0, 0))).toBe(false);
      expect(await vectors.get(otherWorkspace, space, seq)).toBeNull();
      expect(await vectors.get(otherWorkspace, space, theirs)).toBeNull();
      await expect(vectors.put(scope, space, seq, v(1, 2, 3))).rejects.toThrow(/3 dimensions/);
      await vectors.remove(otherWorkspace, space, seq);
      expect(await vectors.get(scope, space, seq)).toEqual(v(1, 2, 3, 4));
      await vectors.remove(scope, space, seq);
      expect(await vectors.get(scope, space, seq)).toBeNull();
      expect(await vectors.count(scope, space)).toBe(0);
    });

    it('counts per scope and drops the vectors of deleted assets', async () => {
      const { vectors, assets } = await f.create();
      const space = await vectors.ensureSpace('asset_text', 'm', 4, 'ready');
      const mine = [await assets.insert(asset({})), await assets.insert(asset({})), await assets.insert(asset({}))];
      const theirs = await assets.insert(asset({}, otherTenant));
      for (const [i, seq] of mine.entries()) await vectors.put(scope, space, seq, at(i / 10));
      await vectors.put(otherTenant, space, theirs, at(0));
      expect(await vectors.count(scope, space)).toBe(3);
      expect(await vectors.count(otherTenant, space)).toBe(1);
      expect(await vectors.count(otherWorkspace, space)).toBe(0);
      expect(await vectors.count(forged, space)).toBe(0);
      expect(await vectors.get(forged, space, mine[1]!)).toBeNull();
      expect(await vectors.sample(forged, space, 10)).toEqual([]);
      expect(await vectors.put(forged, space, mine[1]!, at(1))).toBe(false);
      await assets.deleteMany(scope, [mine[0]!]);
      expect(await vectors.count(scope, space)).toBe(2);
      expect(await vectors.get(scope, space, mine[0]!)).toBeNull();
      expect((await vectors.nearest(scope, space, at(0), 10, {})).map((h) => h.seq)).toEqual([mine[1], mine[2]]);
    });

    it('returns the k nearest by cosine, nearest first, with their similarity, within the scope', async () => {
      const { vectors, assets } = await f.create();
      const space = await vectors.ensureSpace('asset_text', 'm', 4, 'ready');
      const angles = [0.9, 0.1, 0.5, 1.3, 0.3, 2.5, 3.0];
      const seqs: number[] = [];
      for (const a of angles) {
        const seq = await assets.insert(asset({}));
        seqs.push(seq);
        // lengths differ: cosine ignores them
        const x = at(a);
        await vectors.put(
          scope,
          space,
          seq,
          x.map((c) => c * (1 + seq)),
        );
      }
      const near = await assets.insert(asset({}, otherWorkspace));
      await vectors.put(otherWorkspace, space, near, at(0));
      const q = at(0);
      const byAngle = angles.map((a, i) => ({ a, seq: seqs[i]! })).sort((x, y) => x.a - y.a);
      const hits = await vectors.nearest(scope, space, q, 3, {});
      expect(hits.map((h) => h.seq)).toEqual(byAngle.slice(0, 3).map((x) => x.seq));
      for (const h of hits) expect(h.similarity).toBeCloseTo(Math.cos(angles[seqs.indexOf(h.seq)]!), 5);
      const all = await vectors.nearest(scope, space, q, 50, {});
      expect(all.map((h) => h.seq)).toEqual(byAngle.map((x) => x.seq));
      expect(all.at(-1)!.similarity).toBeCloseTo(Math.cos(3.0), 5);
      // the floor keeps the nearest first and drops the rest
      expect((await vectors.nearest(scope, space, q, 50, {}, Math.cos(0.6))).map((h) => h.seq)).toEqual(
        byAngle.slice(0, 3).map((x) => x.seq),
      );
      expect(await vectors.nearest(otherWorkspace, space, q, 5, {})).toEqual([{ seq: near, similarity: expect.closeTo(1, 5) }]);
      expect(await vectors.nearest(otherTenant, space, q, 5, {})).toEqual([]);
      expect(await vectors.nearest(forged, space, q, 5, {})).toEqual([]);
      expect(await vectors.nearest(scope, space, new Float32Array(4), 5, {})).toEqual([]);
      expect(await vectors.nearest(scope, space, q, 0, {})).toEqual([]);
      await expect(vectors.nearest(scope, space, v(1, 0), 5, {})).rejects.toThrow(/2 dimensions/);
      const q2 = v(0.3, -0.2, 0.9, 0.1);
      const stored = await Promise.all(seqs.map(async (s) => ({ s, x: (await vectors.get(scope, space, s))! })));
      const expected = stored.map(({ s, x }) => ({ s, c: cosine(q2, x) })).sort((a, b) => b.c - a.c);
      const got = await vectors.nearest(scope, space, q2, 4, {});
      expect(got.map((h) => h.seq)).toEqual(expected.slice(0, 4).map((e) => e.s));
      got.forEach((h, i) => expect(h.similarity).toBeCloseTo(expected[i]!.c, 5));
    });

    it('applies every asset filter inside the search: k hits when k assets pass, however many nearer ones fail', async () => {
      const { vectors, assets } = await f.create();
      const space = await vectors.ensureSpace('asset_visual', 'm', 4, 'ready');
      const put = async (a: Partial<NewAsset>, angle: number): Promise<number> => {
        const seq = await assets.insert(asset(a));
        await vectors.put(scope, space, seq, at(angle));
        return seq;
      };
      // twelve near photos that fail every filter below, then the ones that pass, farther away
      for (let i = 0; i < 12; i++) await put({}, i / 100);
      const svg = await put({ kind: 'svg', width: null, height: null }, 1.0);
      const banner = await put({ category: 'banner', subtype: 'hero', width: 3000, height: 1000 }, 1.1);
      const tall = await put({ category: 'banner', subtype: 'side', width: 1000, height: 3000 }, 1.2);
      const wide2 = await put({ category: 'banner', subtype: 'hero', width: 2000, height: 1000 }, 1.3);
      const q = at(0);
      const seqsOf = async (fl: Parameters<VectorStore['nearest']>[4], k = 2): Promise<number[]> =>
        (await vectors.nearest(scope, space, q, k, fl)).map((h) => h.seq);
      expect(await seqsOf({ kind: 'svg' })).toEqual([svg]);
      expect(await seqsOf({ category: 'banner' })).toEqual([banner, tall]);
      expect(await seqsOf({ category: 'banner', subtype: 'hero' })).toEqual([banner, wide2]);
      expect(await seqsOf({ orientation: 'landscape' })).toEqual([banner, wide2]);
      expect(await seqsOf({ orientation: 'portrait' })).toEqual([tall]);
      expect(await seqsOf({ category: 'banner', maxSeq: tall })).toEqual([banner, tall]);
      expect(await seqsOf({ category: 'banner', maxSeq: banner })).toEqual([banner]);
      expect(await seqsOf({ category: 'banner', excludeSeq: banner })).toEqual([tall, wide2]);
      expect(await seqsOf({ category: 'poster' })).toEqual([]);
      expect(await seqsOf({ kind: 'video' })).toEqual([]);
    });

    it('samples the scope in the fixed hash order, the same on every call', async () => {
      const { vectors, assets } = await f.create();
      const space = await vectors.ensureSpace('asset_text', 'm', 4, 'ready');
      const seqs: number[] = [];
      for (let i = 0; i < 9; i++) {
        const seq = await assets.insert(asset({}));
        seqs.push(seq);
        await vectors.put(scope, space, seq, at(i / 7));
      }
      const theirs = await assets.insert(asset({}, otherWorkspace));
      await vectors.put(otherWorkspace, space, theirs, at(0));
      const order = [...seqs].sort((a, b) => ((a * 2654435761) % 4294967296) - ((b * 2654435761) % 4294967296) || a - b);
      const sample = await vectors.sample(scope, space, 5);
      expect(sample.map((s) => s.seq)).toEqual(order.slice(0, 5));
      for (const s of sample) expect(s.vector).toEqual(at(seqs.indexOf(s.seq) / 7));
      expect((await vectors.sample(scope, space, 50)).map((s) => s.seq)).toEqual(order);
      expect((await vectors.sample(otherWorkspace, space, 50)).map((s) => s.seq)).toEqual([theirs]);
    });

    it('keeps spaces apart and shows every write to another process', async () => {
      const { vectors, assets, open } = await f.create();
      const a = await vectors.ensureSpace('asset_text', 'small', 4, 'ready');
      const b = await vectors.ensureSpace('asset_text', 'large', 6, 'ready');
      const other = await open();
      const seq = await assets.insert(asset({}));
      // the other process has searched before the writes (SQLite: its partition is loaded, then must follow)
      expect(await other.nearest(scope, a, at(0), 5, {})).toEqual([]);
      await vectors.put(scope, a, seq, at(0));
      await vectors.put(scope, b, seq, at(0.2, 6));
      expect(await other.nearest(scope, a, at(0), 5, {})).toEqual([{ seq, similarity: expect.closeTo(1, 5) }]);
      expect(await other.nearest(scope, b, at(0, 6), 5, {})).toEqual([{ seq, similarity: expect.closeTo(Math.cos(0.2), 5) }]);
      expect(await other.count(scope, a)).toBe(1);
      await vectors.remove(scope, a, seq);
      expect(await other.nearest(scope, a, at(0), 5, {})).toEqual([]);
      expect(await other.count(scope, b)).toBe(1);
      const [space] = await other.liveSpaces('asset_text');
      expect(space).toMatchObject({ id: a.id, model_id: 'small' });
    });
  });
}
