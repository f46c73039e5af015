import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { cosine } from '../domain/search/sif.ts';
import { buildWordVectors } from './word-vectors-build.ts';
import { loadWordVectors, quantizeRow, wordVector, type WordVectors } from './word-vectors.ts';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 2 ** 32;
}
const rand = rng(7);
const randomRow = (dims: number): number[] => Array.from({ length: dims }, () => (rand() - 0.5) * 2);

/** One row quantised at `bits` and read back through `wordVector`. */
function roundTrip(row: number[], bits: 8 | 4): Float32Array {
  const dims = row.length;
  const int8 = new Int8Array(dims);
  const nibbles = new Uint8Array(dims / 2);
  const scale = quantizeRow(row, bits, bits === 8 ? int8 : nibbles, 0);
  const wv: WordVectors = {
    dims,
    count: 1,
    index: new Map(),
    int8Rows: bits === 8 ? 1 : 0,
    scales: Float32Array.of(scale),
    int8,
    nibbles,
    u: new Float32Array(dims),
  };
  return wordVector(wv, 0);
}

describe('word-vector quantisation', () => {
  it('keeps a row nearly exact at int8 and close at 4 bits, and zero rows zero', () => {
    for (let i = 0; i < 50; i++) {
      const row = randomRow(100);
      expect(cosine(Float32Array.from(row), roundTrip(row, 8))).toBeGreaterThan(0.9999);
      expect(cosine(Float32Array.from(row), roundTrip(row, 4))).toBeGreaterThan(0.97);
    }
    expect(Array.from(roundTrip(new Array<number>(8).fill(0), 4))).toEqual(new Array<number>(8).fill(0));
  });

  it('packs two 4-bit components per byte, the even one in the low nibble, and keeps the extremes', () => {
    const out = new Uint8Array(2);
    const scale = quantizeRow([1, -1, 0.5, 0], 4, out, 0);
    expect(scale).toBe(1);
    expect(out[0]).toBe((7 + 8) | ((-7 + 8) << 4));
    const back = roundTrip([1, -1, 0.5, 0], 4);
    [1, -1, 4 / 7, 0].forEach((v, i) => expect(back[i]).toBeCloseTo(v, 6));
  });
});

describe('buildWordVectors → loadWordVectors', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-wv-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const words = ['the', 'table', 'oak', 'café', 'espadrille'];
  const rows = words.map(() => randomRow(4));
  // The wink JSON shape: header fields, then "vectors": {word: [v0 … v3, l2norm, rank]} (order need not be rank order).
  const json = JSON.stringify({
    precision: 8,
    l2NormIndex: 4,
    wordIndex: 5,
    size: words.length,
    dimensions: 4,
    words,
    vectors: Object.fromEntries(words.map((w, r) => [w, [...rows[r]!, 1, r]]).reverse()),
    unkVector: [0, 0, 0, 0],
  });

  it('keeps every word in rank order, the first int8Rows at int8 and the rest at 4 bits', async () => {
    fs.writeFileSync(path.join(dir, 'wink.json'), json);
    const file = path.join(dir, 'wv.bin');
    const r = await buildWordVectors(path.join(dir, 'wink.json'), file, { int8Rows: 2 });
    expect(r).toMatchObject({ count: 5, dims: 4 });
    const wv = loadWordVectors(file);
    expect(wv).toMatchObject({ dims: 4, count: 5, int8Rows: 2 });
    expect([...wv.index.entries()]).toEqual(words.map((w, i) => [w, i]));
    for (let i = 0; i < words.length; i++) {
      const got = wordVector(wv, i);
      expect(cosine(Float32Array.from(rows[i]!), got)).toBeGreaterThan(i < 2 ? 0.9999 : 0.97);
    }
    expect(Math.hypot(...wv.u)).toBeCloseTo(1, 5);
  });

  it('rejects a truncated file and a file of another format', async () => {
    const file = path.join(dir, 'wv.bin');
    const bytes = fs.readFileSync(file);
    fs.writeFileSync(path.join(dir, 'short.bin'), bytes.subarray(0, bytes.length - 1));
    expect(() => loadWordVectors(path.join(dir, 'short.bin'))).toThrow(/truncated/);
    fs.writeFileSync(path.join(dir, 'old.bin'), Buffer.concat([Buffer.from('ATLWV001'), bytes.subarray(8)]));
    expect(() => loadWordVectors(path.join(dir, 'old.bin'))).toThrow(/not an Atelier word-vector file/);
  });

  it('writes a gzipped file for a .gz path that loads to exactly the vectors of the plain file', async () => {
    const gz = path.join(dir, 'wv.bin.gz');
    await buildWordVectors(path.join(dir, 'wink.json'), gz, { int8Rows: 2 });
    expect(fs.readFileSync(gz).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    expect(zlib.gunzipSync(fs.readFileSync(gz)).equals(fs.readFileSync(path.join(dir, 'wv.bin')))).toBe(true);
    const plain = loadWordVectors(path.join(dir, 'wv.bin'));
    const packed = loadWordVectors(gz);
    expect([...packed.index.entries()]).toEqual([...plain.index.entries()]);
    for (let i = 0; i < words.length; i++) expect(wordVector(packed, i)).toEqual(wordVector(plain, i));
    expect(packed.u).toEqual(plain.u);
  });

  it('refuses a vectors object whose rows do not have dims + 2 numbers', async () => {
    fs.writeFileSync(path.join(dir, 'bad.json'), json.replace(/\[([^\]]*?),1,0\]/, '[$1,0]'));
    await expect(buildWordVectors(path.join(dir, 'bad.json'), path.join(dir, 'bad.bin'))).rejects.toThrow(/numbers, expected 6/);
  });
});
