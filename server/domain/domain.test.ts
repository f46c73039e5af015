import { describe, expect, it } from 'vitest';
import { ServiceError } from '../errors.ts';
import { createCursorCodec, stableJson } from './cursor.ts';
import { buildMatch, queryTerms } from './fts-query.ts';
import { reciprocalRankFusion } from './rrf.ts';
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
    expect(() => createCursorCodec('secret-b').decode(q, c)).toThrow(/signature/);
    expect(() => codec.decode(q, `${c.slice(0, -2)}AA`)).toThrow(ServiceError);
    expect(() => codec.decode(q, 'x.y.z')).toThrow(ServiceError);
  });
  it('stableJson sorts keys and drops undefined', () => {
    expect(stableJson({ b: 1, a: [2, { d: undefined, c: 3 }] })).toBe('{"a":[2,{"c":3}],"b":1}');
  });
});

describe('FTS5 query building', () => {
  it('quotes every term as a prefix and drops stop words', () => {
    expect(queryTerms('A photo of the Café "Crème"')).toEqual(['cafe', 'creme']);
    expect(buildMatch(['cafe', 'creme'], 'AND', null)).toBe('"cafe"* AND "creme"*');
    expect(buildMatch(['x'], 'OR', 'tags')).toBe('{tags} : ("x"*)');
    expect(buildMatch([], 'AND', null)).toBeNull();
  });
  it('neutralises FTS5 operators and keeps stop-word-only queries', () => {
    expect(queryTerms('NEAR(a b) OR "x*" -y')).toEqual(['near', 'b', 'x', 'y']);
    expect(queryTerms('the')).toEqual(['the']);
  });
});

describe('reciprocal rank fusion', () => {
  it('scores 1/(k+rank) summed over lists (Cormack et al. 2009)', () => {
    const fused = reciprocalRankFusion([['a', 'b', 'c'], ['c', 'a']], 60);
    expect(fused.map((f) => f.id)).toEqual(['a', 'c', 'b']);
    expect(fused[0]!.score).toBeCloseTo(1 / 61 + 1 / 62, 12);
    expect(fused[2]!.score).toBeCloseTo(1 / 62, 12);
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
    expect(() => resolveWorkspace([a, b], undefined)).toThrow(expect.objectContaining({ code: 'ambiguous_scope', field: 'args.workspace_id' }));
    expect(() => resolveWorkspace([a], 'q')).toThrow(expect.objectContaining({ code: 'not_found' }));
    expect(() => resolveWorkspace([a, z], 'z')).toThrow(expect.objectContaining({ code: 'not_found' }));
    expect(() => resolveWorkspace([z], undefined)).toThrow(expect.objectContaining({ code: 'not_found' }));
  });
});

describe('usage hints', () => {
  const base = { kind: 'image', purpose: null, category: null, subtype: null };
  it('follows purpose, kind and proportions', async () => {
    const { usageHint } = await import('./asset-meta.ts');
    expect(usageHint({ ...base, purpose: 'hero_bg', width: 10, height: 10 })).toBe('hero bg');
    expect(usageHint({ ...base, kind: 'svg', width: 120, height: 40 })).toMatch(/logo/);
    expect(usageHint({ ...base, width: 2560, height: 1200 })).toMatch(/^hero or full-width/);
    expect(usageHint({ ...base, width: 512, height: 307 })).toMatch(/\(wide landscape\)$/);
    expect(usageHint({ ...base, width: 800, height: 800 })).toMatch(/\(square\)$/);
    expect(usageHint({ ...base, width: 3024, height: 4032 })).toMatch(/\(portrait\)$/);
    expect(usageHint({ ...base, width: 150, height: 103 })).toMatch(/^icon, thumbnail/);
  });
});
