/**
 * The asset-side stores of issue 16 on both backends, interleaved in one process, over the same 5,000
 * seeded assets (two workspaces of one tenant): latency of one asset insert (row + 2 renditions), one
 * `byId`, one result-page hydrate (`bySeqs` + `renditionsOf` of 24 seqs), one `browse` first page, and
 * one word search through the asset LexicalIndex (k 24, the planner's exact-AND expression) for a rare word (~0.5 % of assets), a common word (~10 %) and two words.
 * SQLite: a WAL file as the server opens it (openDb); PostgreSQL: the test database of the machine
 * (ATELIER_TEST_POSTGRES_URL overrides) in a throwaway schema. No target: a baseline for the move to
 * PostgreSQL (search rankings differ by design: FTS5 BM25 vs ts_rank_cd).
 */
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createSqliteAssetStore } from '../server/db/sqlite/assets.ts';
import { createLexicalIndexes } from '../server/db/sqlite/lexical-index.ts';
import { allWords } from '../server/domain/search/lexical-query.ts';
import type { LexicalIndex } from '../server/domain/search/lexical.ts';
import type { Scope } from '../server/domain/scope.ts';
import { openDb } from '../server/db/sqlite/connection.ts';
import type { AssetStore, NewAsset } from '../server/db/ports/asset-store.ts';
import type { TenancyStore } from '../server/db/ports/tenancy-store.ts';
import { createPgLexicalIndexes } from '../server/db/postgres/lexical-index.ts';
import { createPgAssetStore } from '../server/db/postgres/assets.ts';
import { createPgTenancyStore } from '../server/db/postgres/tenancy.ts';
import { createTestSchema } from '../server/db/contract/pg-test-database.ts';
import { createSqliteTenancyStore } from '../server/db/sqlite/tenancy.ts';
import { backendTable } from './stats.ts';

interface Backend {
  name: string;
  tenancy: TenancyStore;
  assets: AssetStore;
  /** the asset LexicalIndex of a scope, as search builds it */
  lexical: (scope: Scope) => LexicalIndex;
}

const SEEDED = 5000;
const ROUNDS = 5;
const PER_ROUND = 40;
const PAGE = 24;
const scope = { tenantId: 't', workspaceId: 'w1' };
const WORDS = 'tree fox lake sky river stone cloud field shoe dress lamp chair table cup plate bag watch ring coat boot'.split(' ');

const sha = (s: string): string => createHash('sha256').update(s).digest('hex');

/** Asset `i`: two of 20 words as tags (each ~10 % of assets), "zebra" on every 200th, the workspace by parity. */
function asset(i: number, salt: string): NewAsset {
  const w = (k: number): string => WORDS[k % WORDS.length]!;
  return {
    id: randomUUID(),
    tenant_id: 't',
    workspace_id: i % 2 === 0 ? 'w1' : 'w2',
    kind: 'image',
    format: 'jpeg',
    mime_type: 'image/jpeg',
    width: 1200 + (i % 3) * 200,
    height: 1000,
    size_bytes: 100_000 + i,
    sha256: sha(`o ${salt} ${i}`),
    source_sha256: sha(`s ${salt} ${i}`),
    converted_from: null,
    name: `IMG_${i}.jpg`,
    name_words: null,
    alt_text: `a ${w(i * 7)} near the ${w(i * 13)}`,
    tags: [w(i), w(i * 3 + 1), ...(i % 200 === 0 ? ['zebra'] : [])],
    purpose: null,
    category: null,
    subtype: null,
    user_fields: ['tags'],
    source: 'seed',
    source_url: null,
    provenance: null,
    enrichment_status: 'skipped',
    created_at: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
    renditions: [
      { role: 'thumbnail', width: 320, height: 267, format: 'webp', sha256: sha(`t ${salt} ${i}`), size_bytes: 9000 },
      { role: 'webp', width: 640, height: 533, format: 'webp', sha256: sha(`w ${salt} ${i}`), size_bytes: 30000 },
    ],
  };
}

async function seed(b: Backend): Promise<void> {
  await b.tenancy.insertTenant('t', 't', new Date().toISOString());
  for (const w of ['w1', 'w2']) {
    const at = new Date().toISOString();
    await b.tenancy.createWorkspace(
      { id: w, tenant_id: 't', name: w, created_at: at },
      { id: `th-${w}`, tenant_id: 't', workspace_id: w, name: w, brand_colors: [], brand_tone: null, created_at: at },
      { id: `st-${w}`, tenant_id: 't', workspace_id: w, name: w, platform: 'shopify', shop_domain: null, created_at: at },
      false,
    );
  }
  for (let i = 0; i < SEEDED; i++) await b.assets.insert(asset(i, 'seed'));
}

export default async function assetStoresBench(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-asset-bench-'));
  const db = openDb(path.join(dir, 'assets.db'));
  const schema = await createTestSchema();
  const pool = schema.pool();
  const sqliteIndexes = createLexicalIndexes(db);
  const pgIndexes = createPgLexicalIndexes(pool);
  const backends: Backend[] = [
    {
      name: 'SQLite',
      tenancy: createSqliteTenancyStore(db),
      assets: createSqliteAssetStore(db),
      lexical: (sc) => sqliteIndexes.assets(sc, {}),
    },
    {
      name: 'PostgreSQL',
      tenancy: createPgTenancyStore(pool),
      assets: createPgAssetStore(pool),
      lexical: (sc) => pgIndexes.assets(sc, {}),
    },
  ];
  const samples = new Map<string, number[]>();
  const add = (key: string, ms: number): void => void samples.set(key, [...(samples.get(key) ?? []), ms]);
  const seedMs: Record<string, number> = {};
  let next = SEEDED;
  try {
    for (const b of backends) {
      const t = performance.now();
      await seed(b);
      seedMs[b.name] = performance.now() - t;
    }
    // planner statistics of the seeded tables, as autovacuum would gather them on a live database
    await pool.query('ANALYZE');
    const seqs = new Map<string, number[]>();
    for (const b of backends)
      seqs.set(
        b.name,
        (await b.assets.browse(scope, {}, 0, 1000)).rows.map((r) => r.seq),
      );
    for (let round = 0; round < ROUNDS; round++) {
      // interleaved: each round measures every operation on both backends
      for (const b of backends) {
        const mine = seqs.get(b.name)!;
        const timed = async (op: string, fn: () => Promise<unknown>): Promise<void> => {
          const t = performance.now();
          await fn();
          add(`${b.name}|${op}`, performance.now() - t);
        };
        for (let i = 0; i < PER_ROUND; i++) {
          const a = asset(next++, `${b.name} ${round}`);
          await timed('insert (row + 2 renditions)', () => b.assets.insert(a));
          await timed('byId', () => b.assets.byId(scope, a.id));
          const page = mine.slice((i * PAGE) % 900, ((i * PAGE) % 900) + PAGE);
          await timed(`bySeqs (${PAGE})`, () => b.assets.bySeqs(scope, page));
          await timed(`cardsBySeqs (${PAGE}: a search page)`, () => b.assets.cardsBySeqs(scope, page));
          await timed(`browse first page (${PAGE})`, () => b.assets.browse(scope, {}, 0, PAGE));
          await timed('search rare word "zebra"', () => b.lexical(scope).search(allWords(['zebra']), PAGE));
          await timed('search common word (~10 %)', () => b.lexical(scope).search(allWords([WORDS[i % WORDS.length]!]), PAGE));
          await timed('search two words', () =>
            b.lexical(scope).search(allWords([WORDS[i % WORDS.length]!, WORDS[(i + 5) % WORDS.length]!]), PAGE),
          );
        }
      }
    }
  } finally {
    db.close();
    await schema.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const load = os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
  process.stdout.write(
    `load average ${load}; ${SEEDED} assets seeded through the ports (SQLite ${(seedMs.SQLite! / 1000).toFixed(1)} s, ` +
      `PostgreSQL ${(seedMs.PostgreSQL! / 1000).toFixed(1)} s); ${ROUNDS} interleaved rounds of ${PER_ROUND}\n`,
  );
  backendTable(samples);
}
