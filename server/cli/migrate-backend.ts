import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { createLocalBlobStore, type BlobStore } from '../storage/blob-store.ts';
import { openSqliteStores, sqliteOf } from '../stores.ts';
import type { CliKit } from './catalog.ts';
import { createTestHooks } from '../test-hooks.ts';
import type { SpaceCopy } from './migrate-backend-copy.ts';

/** What the command leaves behind on purpose, printed with every run. */
const NOT_COPIED = [
  'open uploads and their chunks, pickers and credit holds: transient (they expire within hours); clients start them again',
  'the search change log and the FTS5/vec0 index tables: the target derives its lexical index from the rows',
];

/**
 * `atelier migrate-backend --from <data dir>`: copy a SQLite data dir (its atelier.db and blob directory)
 * into the configured PostgreSQL database (ATELIER_DATABASE_URL, ATELIER_DATABASE_SCHEMA) and a blob
 * store (ATELIER_BLOB_STORE=s3://…, or `--to-blobs <dir>`), then verify. Stop every server on the source
 * first: the source is read in one SQLite read transaction (a consistent snapshot), but writes made
 * meanwhile are not copied. The source file is migrated to the current SQLite schema when opened.
 *
 * Order: refuse unless every Atelier table of the target is empty (never merges; names the tables that
 * are not) → copy every referenced blob and read it back (any failure stops here, before a row is
 * written) → copy the rows in one transaction (migrate-backend-copy.ts) → copy the asset vectors
 * through the vector ports (skipped with a warning when the target lacks pgvector) → verify per-table
 * counts, asset and product identities, and that every blob the target rows reference is in the target
 * store. Output: a summary (`--json`: one JSON object, see `MigrateSummary`). Exit 0 when everything
 * matches, 1 on any mismatch or failed blob, 2 when refused (bad arguments, target not empty).
 */
export function registerMigrateBackendCommand(program: Command, kit: CliKit): void {
  program
    .command('migrate-backend')
    .description(
      'copy a SQLite data dir into the configured PostgreSQL (ATELIER_DATABASE_URL, ATELIER_DATABASE_SCHEMA) and blob store (ATELIER_BLOB_STORE or --to-blobs), then verify counts and hashes; the target must be empty',
    )
    .requiredOption('--from <dir>', 'the SQLite data dir (holds atelier.db); stop its servers first')
    .option('--from-blobs <dir>', 'blob directory of the source (default: <from>/blobs)')
    .option('--to-blobs <dir>', 'target blob directory (default: the configured ATELIER_BLOB_STORE, which must then be s3://…)')
    .option('--json', 'print one JSON summary')
    .action(async (o: { from: string; fromBlobs?: string; toBlobs?: string; json?: boolean }) => {
      const summary = await migrateBackend(o, kit);
      kit.emit(!!o.json, { ...summary }, humanSummary(summary));
      process.exitCode = summary.ok ? 0 : 1;
    });
}

/** The command's result (`--json`). */
export interface MigrateSummary {
  ok: boolean;
  source: { db: string; blobs: string };
  target: { schema: string | null; blobs: string };
  tables: { table: string; source: number; target: number; ok: boolean }[];
  /** every asset keeps (seq, id, sha256) and every product (seq, store, gid) */
  identities: { assets: boolean; products: boolean };
  blobs: {
    referenced: number;
    copied: number;
    bytes: number;
    failures: { sha256: string; problem: string }[];
    missing_in_target: string[];
  };
  /** per vector space; null when skipped (`vectors_skipped` says why) */
  vectors: (SpaceCopy & { ok: boolean })[] | null;
  vectors_skipped: string | null;
  not_copied: string[];
}

async function migrateBackend(o: { from: string; fromBlobs?: string; toBlobs?: string }, kit: CliKit): Promise<MigrateSummary> {
  // Imported when the command runs, not when the CLI starts: every other command would load them for nothing.
  const [{ createPgPool }, { createS3BlobStore }, { openPgStores }, copy] = await Promise.all([
    import('../db/postgres/pool.ts'),
    import('../storage/blob-store-s3.ts'),
    import('../stores-pg.ts'),
    import('./migrate-backend-copy.ts'),
  ]);
  const { copyBlobs, copyRows, copyVectors, countBoth, identitiesMatch, missingTargetBlobs, nonEmptyTargetTables, referencedBlobs } = copy;
  const config = loadConfig();
  if (config.database.kind !== 'postgres') kit.fail('set ATELIER_DATABASE_URL (and ATELIER_DATABASE_SCHEMA) to the target PostgreSQL');
  const db = config.database;
  const dbPath = path.resolve(o.from, 'atelier.db');
  if (!fs.existsSync(dbPath)) kit.fail(`${dbPath} does not exist: --from names a data dir holding atelier.db`);
  const fromBlobDir = path.resolve(o.fromBlobs ?? path.join(o.from, 'blobs'));
  if (!fs.existsSync(fromBlobDir)) kit.fail(`source blob directory ${fromBlobDir} does not exist (pass --from-blobs)`);
  let toBlobs: BlobStore;
  if (o.toBlobs) toBlobs = createLocalBlobStore(path.resolve(o.toBlobs));
  else if (config.blobStore.kind === 's3') toBlobs = createS3BlobStore(config.blobStore);
  else kit.fail('name the target blob store: ATELIER_BLOB_STORE=s3://bucket/prefix, or --to-blobs <dir>');
  const fromBlobs = createLocalBlobStore(fromBlobDir);

  const source = openSqliteStores(dbPath);
  const src = sqliteOf(source);
  const target = await openPgStores(db);
  const pool = createPgPool(db.url, {
    max: 1,
    ...(db.schema ? { onConnect: async (c) => void (await c.query(`SET search_path TO ${db.schema}, public`)) } : {}),
  });
  try {
    const busy = await nonEmptyTargetTables(pool);
    if (busy.length > 0)
      kit.fail(
        `the target schema ${db.schema ?? '(default)'} is not empty: ${busy.map((b) => `${b.table} (${b.rows} rows)`).join(', ')}. ` +
          'migrate-backend copies only into an empty schema and never merges: name a new ATELIER_DATABASE_SCHEMA.',
      );
    await toBlobs.check();
    // one read transaction: the blobs listed and the rows copied are the same snapshot
    src.exec('BEGIN');
    const blobs = await copyBlobs(referencedBlobs(src), fromBlobs, toBlobs);
    const base = {
      source: { db: dbPath, blobs: fromBlobs.location },
      target: { schema: db.schema, blobs: toBlobs.location },
      not_copied: NOT_COPIED,
    };
    if (blobs.failures.length > 0)
      return {
        ok: false,
        ...base,
        tables: [],
        identities: { assets: false, products: false },
        blobs: { ...blobs, missing_in_target: [] },
        vectors: null,
        vectors_skipped: 'not reached: blobs failed, no row was copied',
      };
    await copyRows(src, pool);
    const avail = await target.vectors.available();
    const hooks = createTestHooks(config.testPause.points, config.testPause.dir);
    const spaces = avail.ok ? await copyVectors(src, source, target, hooks) : null;
    const tables = (await countBoth(src, pool)).map((t) => ({ ...t, ok: t.source === t.target }));
    const identities = await identitiesMatch(src, pool);
    const missing = await missingTargetBlobs(pool, toBlobs);
    const vectors = spaces?.map((s) => ({ ...s, ok: s.source === s.target })) ?? null;
    const ok =
      tables.every((t) => t.ok) && identities.assets && identities.products && missing.length === 0 && (vectors ?? []).every((v) => v.ok);
    return {
      ok,
      ...base,
      tables,
      identities,
      blobs: { ...blobs, missing_in_target: missing },
      vectors,
      vectors_skipped: avail.ok ? null : `asset vectors not copied: ${avail.reason}`,
    };
  } finally {
    if (src.inTransaction) src.exec('ROLLBACK');
    await pool.end();
    await target.close();
    await source.close();
  }
}

function humanSummary(s: MigrateSummary): string {
  const lines = [`source: ${s.source.db} + ${s.source.blobs}`, `target: schema ${s.target.schema ?? '(default)'} + ${s.target.blobs}`];
  lines.push(
    `blobs: ${s.blobs.copied}/${s.blobs.referenced} copied and verified by sha256 (${s.blobs.bytes} bytes)` +
      (s.blobs.missing_in_target.length ? `, ${s.blobs.missing_in_target.length} missing in the target` : ''),
  );
  for (const f of s.blobs.failures) lines.push(`  FAILED ${f.sha256}: ${f.problem}`);
  for (const t of s.tables) lines.push(`${t.ok ? 'ok  ' : 'DIFF'} ${t.table}: ${t.source} → ${t.target}`);
  if (s.tables.length)
    lines.push(`identities: assets ${s.identities.assets ? 'kept' : 'DIFFER'}, products ${s.identities.products ? 'kept' : 'DIFFER'}`);
  for (const v of s.vectors ?? [])
    lines.push(`${v.ok ? 'ok  ' : 'DIFF'} vectors ${v.purpose} ${v.model_id} (${v.dimensions}d): ${v.source} → ${v.target}`);
  if (s.vectors_skipped) lines.push(`warning: ${s.vectors_skipped}`);
  lines.push(...s.not_copied.map((n) => `not copied: ${n}`));
  lines.push(s.ok ? 'migration verified' : 'migration FAILED verification (see above)');
  return lines.join('\n');
}
