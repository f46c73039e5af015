import { COLOUR_NAMES } from '../../domain/media/colour.ts';
import type { Scope } from '../../domain/scope.ts';
import { jsonStrings } from '../asset-json.ts';
import type { TsWeight } from './fts-tsquery.ts';
import { weightedTsvector } from './porter-tokens.ts';
import { inTransaction, type PgClient, type PgPool } from './pool.ts';

/**
 * The lexical index of assets on PostgreSQL (postgres/migrations/0010): `assets.lexical_vector`, a
 * tsvector of the lexemes SQLite's `assets_fts` holds (porter-tokens.ts, the planner's own stemmer),
 * built here in JavaScript because PostgreSQL has no Porter stemmer that splits text as FTS5 does.
 * Each FTS5 column is a weight letter, so `{col} : …` filters and field weights work as in FTS5
 * (bm25 weights name 4, tags 3, alt text 2, OCR text 1; server/db/sqlite/lexical-index.ts):
 *   A  name and its readable words        B  user tags, then automatic tags without colour words
 *   C  alt_text                           D  ocr_text
 * the same column texts as the SQLite triggers (server/db/sqlite/migrations 0022). Positions run on across
 * columns with a gap of one, so a phrase never spans two columns (FTS5 phrases stay in one column).
 *
 * A null vector is stale: inserts and updates by the asset store write it (postgres/assets.ts), a
 * trigger nulls it when any other write changes the text (enrichment's OCR text and automatic tags,
 * raw SQL), and the lexical index refreshes a scope's stale rows before it reads (lexical-index.ts).
 */

/** Weight letter of each FTS5 column of `assets_fts` (for fts-tsquery.ts column filters). */
export const ASSET_COLUMN_WEIGHTS: Readonly<Record<string, TsWeight>> = { name: 'A', tags: 'B', alt_text: 'C', ocr_text: 'D' };

/**
 * Automatic colour tags are facts, not words of the index (the same list as SQLite migration 0022 and
 * PostgreSQL migration 0004).
 */
const COLOUR_WORDS = COLOUR_NAMES;

/** The text columns of an asset row the index reads (as the port's `AssetRow` has them). */
export interface AssetText {
  name: string;
  name_words: string | null;
  alt_text: string | null;
  /** user tags */
  tags: readonly string[];
  /** automatic tags */
  auto_tags: readonly string[];
  ocr_text: string | null;
}

/**
 * The `lexical_vector` of an asset as tsvector input text (`'lexeme':1A,4A 'other':3B`), lexemes
 * quoted and escaped; '' for an asset without words.
 */
export function assetLexicalVector(t: AssetText): string {
  const columns: [string, TsWeight][] = [
    [`${t.name} ${t.name_words ?? ''}`, 'A'],
    [[...t.tags, ...t.auto_tags.filter((w) => !COLOUR_WORDS.has(w))].join(' '), 'B'],
    [t.alt_text ?? '', 'C'],
    [t.ocr_text ?? '', 'D'],
  ];
  return weightedTsvector(columns);
}

const TEXT_COLUMNS = 'seq, name, name_words, alt_text, tags, auto_tags, ocr_text';
/** `TEXT_COLUMNS` as stored: the tag lists as JSON text (migration 0003). */
type StoredText = Omit<AssetText, 'tags' | 'auto_tags'> & { seq: number; tags: string; auto_tags: string };
/** Stale rows refreshed per transaction. */
const REFRESH_BATCH = 500;

/** Lock `seqs`' rows that are still stale (`onlyStale`) or all of them, and write their vectors. @returns rows written */
async function writeVectors(c: Pick<PgClient, 'query'>, seqs: number[], onlyStale: boolean): Promise<number> {
  // ORDER BY seq: concurrent refreshes lock rows in one order (no deadlock); a row another transaction
  // refreshed meanwhile is re-checked after its lock is released and skipped (no longer null)
  const rows = (
    await c.query<StoredText>(
      `SELECT ${TEXT_COLUMNS} FROM assets WHERE seq = ANY($1::bigint[])${onlyStale ? ' AND lexical_vector IS NULL' : ''} ORDER BY seq FOR UPDATE`,
      [seqs],
    )
  ).rows;
  if (rows.length === 0) return 0;
  await c.query(
    'UPDATE assets SET lexical_vector = v.vector::tsvector FROM unnest($1::bigint[], $2::text[]) AS v (seq, vector) WHERE assets.seq = v.seq',
    [rows.map((r) => r.seq), rows.map((r) => assetLexicalVector({ ...r, tags: jsonStrings(r.tags), auto_tags: jsonStrings(r.auto_tags) }))],
  );
  return rows.length;
}

/**
 * Rewrite the lexical vectors of these assets from their current text, inside the caller's transaction
 * (the asset store after an update). @returns rows written (missing seqs count 0)
 */
export function refreshAssetVectors(c: Pick<PgClient, 'query'>, seqs: number[]): Promise<number> {
  return seqs.length === 0 ? Promise.resolve(0) : writeVectors(c, seqs, false);
}

/**
 * Write the vectors of every stale asset of `scope`, in transactions of REFRESH_BATCH rows. Cheap when
 * none is stale (one probe of the partial index `assets_lexical_stale`).
 * @returns rows written
 */
export async function refreshStaleAssets(pool: PgPool, scope: Scope): Promise<number> {
  let n = 0;
  for (;;) {
    const seqs = (
      await pool.query<{ seq: number }>(
        'SELECT seq FROM assets WHERE tenant_id = $1 AND workspace_id = $2 AND lexical_vector IS NULL ORDER BY seq LIMIT $3',
        [scope.tenantId, scope.workspaceId, REFRESH_BATCH],
      )
    ).rows.map((r) => r.seq);
    if (seqs.length === 0) return n;
    n += await inTransaction(pool, (c) => writeVectors(c, seqs, true));
  }
}
