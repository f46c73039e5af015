import type { Database } from 'better-sqlite3';
import { createLexicalIndexes } from './lexical-index.ts';
import type { AssetTextSearch } from './ports/asset-text-search.ts';

/** An FTS5 MATCH expression requiring every word: each a quoted string (never an operator), AND'ed. https://www.sqlite.org/fts5.html#fts5_strings */
export const allWordsMatch = (words: string[]): string => words.map((w) => `"${w.replaceAll('"', '""')}"`).join(' AND ');

/**
 * The SQLite `AssetTextSearch`: the FTS5 asset index (assets_fts, bm25 weights 4/2/3/1) through the
 * `LexicalIndex` of server/db/lexical-index.ts, which it does not change. Totals past that module's
 * counting cap are its estimates.
 */
export function createSqliteAssetTextSearch(db: Database): AssetTextSearch {
  const indexes = createLexicalIndexes(db);
  return {
    async search(scope, words, f, k) {
      const content = words.filter((w) => w.trim() !== '');
      if (content.length === 0 || k <= 0) return { seqs: [], total: 0 };
      const r = await indexes.assets(scope, f).search(allWordsMatch(content), k);
      return { seqs: r.seqs, total: r.total };
    },
  };
}
