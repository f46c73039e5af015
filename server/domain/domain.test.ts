import { describe, expect, it } from 'vitest';
import { ServiceError } from '../errors.ts';
import { createCursorCodec, stableJson } from './search/cursor.ts';
import { isobmffTruncation } from './media/isobmff.ts';
import { headWord, queryTerms } from './search/query-words.ts';
import { resolveWorkspace } from './scope.ts';

describe('cursor codec', () => {
  const codec = createCursorCodec('secret-a');
  const q = { w: 'ws1', q: 'falcon', m: 'all' };
  it('round-trips state for the same query regardless of key order', () => {
    const c = codec.encode(q, { offset: 50, snapshot: 99 });
    expect(codec.decode({ m: 'all', q: 'falcon', w: 'ws1' }, c)).toEqual({ offset: 50, snapshot: 99 });
  });
  it('rejects another query, another secret, and edits', () => {
    const c = codec.encode(q, { offset: 50, snapshot: 99 });
    expect(() => codec.decode({ ...q, q: 'fir' }, c)).toThrow(ServiceError);
    expect(() => createCursorCodec('secret-b').decode(q, c)).toThrow(/another server/);
    expect(() => codec.decode(q, `${c.slice(0, -2)}AA`)).toThrow(ServiceError);
    expect(() => codec.decode(q, 'x.y.z')).toThrow(ServiceError);
    expect(() => codec.decode(q, `${c}.${c.split('.')[1]}`)).toThrow(/malformed/);
  });
  it('binds the query through the MAC alone: the cursor holds no digest of it and stays short', () => {
    const c = codec.encode(
      { ...q, q: 'a much longer query about red leather armchairs in a sunny room' },
      { offset: 1000, snapshot: 123456 },
    );
    expect(c.length).toBeLessThanOrEqual(64);
    const payload = JSON.parse(Buffer.from(c.split('.')[0]!, 'base64url').toString()) as Record<string, unknown>;
    expect(payload).toEqual({ v: 2, o: 1000, s: 123456 });
  });
  it('rejects a version 1 cursor (payload digest + full MAC) with a field error', () => {
    const v1 = `${Buffer.from(JSON.stringify({ v: 1, q: 'x'.repeat(22), o: 20, s: 9 })).toString('base64url')}.${'A'.repeat(43)}`;
    expect(() => codec.decode(q, v1)).toThrow(expect.objectContaining({ code: 'invalid_argument', field: 'args.cursor' }));
  });
  it('stableJson sorts keys and drops undefined', () => {
    expect(stableJson({ b: 1, a: [2, { d: undefined, c: 3 }] })).toBe('{"a":[2,{"c":3}],"b":1}');
  });
  it('stableJson of a frozen key equals the unfrozen one, and an object that can change is written afresh', () => {
    const key = Object.freeze({ q: 'red chair', m: 'all', k: null, t: undefined });
    expect(stableJson(key)).toBe('{"k":null,"m":"all","q":"red chair"}');
    expect(stableJson(key)).toBe(stableJson({ ...key }));
    const open: Record<string, unknown> = { q: 'red' };
    expect(stableJson(open)).toBe('{"q":"red"}');
    open.q = 'blue';
    expect(stableJson(open)).toBe('{"q":"blue"}');
    // frozen, but holding an object that can change: not kept
    const inner = { a: 1 };
    const outer = Object.freeze({ inner });
    expect(stableJson(outer)).toBe('{"inner":{"a":1}}');
    inner.a = 2;
    expect(stableJson(outer)).toBe('{"inner":{"a":2}}');
  });
});

describe('query words', () => {
  it('folds diacritics and drops stop words', () => {
    expect(queryTerms('A photo of the Café "Crème"')).toEqual(['cafe', 'creme']);
  });
  it('neutralises FTS5 operators and keeps stop-word-only queries', () => {
    expect(queryTerms('NEAR(a b) OR "x*" -y')).toEqual(['near', 'b', 'x', 'y']);
    expect(queryTerms('the')).toEqual(['the']);
  });
  it('finds the head word of a noun-phrase query: the last content word before a preposition', () => {
    expect(headWord('black leather choker')).toBe('choker');
    expect(headWord('gift for a gardener')).toBe('gift');
    expect(headWord('warm clothes for winter')).toBe('clothes');
    expect(headWord('Café crème')).toBe('creme');
    expect(headWord('earrings')).toBeNull();
    expect(headWord('the earrings')).toBeNull();
  });
});

describe('workspace resolution', () => {
  const a = { id: 'a', name: 'A', status: 'active' as const };
  const b = { id: 'b', name: 'B', status: 'active' as const };
  const z = { id: 'z', name: 'Z', status: 'archived' as const };
  it('picks the only active workspace, or the requested one', () => {
    expect(resolveWorkspace([a, z], undefined)).toBe(a);
    expect(resolveWorkspace([a, b], 'b')).toBe(b);
  });
  it('is ambiguous with two active, not_found for unknown or archived', () => {
    expect(() => resolveWorkspace([a, b], undefined)).toThrow(
      expect.objectContaining({ code: 'ambiguous_scope', field: 'args.workspace_id' }),
    );
    expect(() => resolveWorkspace([a], 'q')).toThrow(expect.objectContaining({ code: 'not_found' }));
    expect(() => resolveWorkspace([a, z], 'z')).toThrow(expect.objectContaining({ code: 'not_found' }));
    expect(() => resolveWorkspace([z], undefined)).toThrow(expect.objectContaining({ code: 'not_found' }));
  });
});

describe('usage hints', () => {
  const base = { kind: 'image', purpose: null, category: null, subtype: null };
  it('follows purpose, kind and proportions', async () => {
    const { usageHint } = await import('./media/asset-meta.ts');
    expect(usageHint({ ...base, purpose: 'hero_bg', width: 10, height: 10 })).toBe('hero bg');
    expect(usageHint({ ...base, kind: 'svg', width: 120, height: 40 })).toMatch(/logo/);
    expect(usageHint({ ...base, width: 2560, height: 1200 })).toMatch(/^hero or full-width/);
    expect(usageHint({ ...base, width: 512, height: 307 })).toMatch(/\(wide landscape\)$/);
    expect(usageHint({ ...base, width: 800, height: 800 })).toMatch(/\(square\)$/);
    expect(usageHint({ ...base, width: 3024, height: 4032 })).toMatch(/\(portrait\)$/);
    // the proportions word follows the asset's orientation (5% rule): 900×1000 is portrait, not square
    const { orientationOf } = await import('./media/alt-text.ts');
    expect(orientationOf(900, 1000)).toBe('portrait');
    expect(usageHint({ ...base, width: 900, height: 1000 })).toMatch(/\(portrait\)$/);
    expect(usageHint({ ...base, width: 1000, height: 980 })).toMatch(/\(square\)$/);
    expect(usageHint({ ...base, width: 150, height: 103 })).toMatch(/^icon, thumbnail/);
  });
});

describe('isobmffTruncation', () => {
  const box = (type: string, body: number): Buffer => {
    const b = Buffer.alloc(8 + body);
    b.writeUInt32BE(8 + body, 0);
    b.write(type, 4, 'latin1');
    return b;
  };
  it('accepts complete files and names the box a cut leaves short', () => {
    const file = Buffer.concat([box('ftyp', 16), box('meta', 40), box('mdat', 100)]);
    expect(isobmffTruncation(file)).toBeNull();
    expect(isobmffTruncation(file.subarray(0, file.length - 1))).toBe("box 'mdat' at byte 72 declares 108 bytes but only 107 remain");
    expect(isobmffTruncation(file.subarray(0, 76))).toMatch(/header at byte 72 is cut off/);
    const toEnd = Buffer.concat([box('ftyp', 16), Buffer.from([0, 0, 0, 0, 0x6d, 0x64, 0x61, 0x74, 1, 2, 3])]);
    expect(isobmffTruncation(toEnd)).toBeNull();
  });
});
