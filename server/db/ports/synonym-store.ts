import type { SynonymRule } from '../../domain/search/lexical-words.ts';
import type { Scope } from '../../domain/scope.ts';

/** A stored synonym rule (migration 0021). */
export interface SynonymRow {
  id: string;
  workspace_id: string;
  /** null: the workspace's list (asset search and every store of it) */
  store_id: string | null;
  kind: 'two_way' | 'one_way';
  input: string | null;
  words: string[];
  created_at: string;
}

/**
 * Port: the operator synonym lists (`atelier synonyms …`, applied by asset search and list_products
 * through the lexical planner, domain/search/lexical.ts). A rule without a store belongs to the workspace and
 * applies to its asset search and every store of it; a rule with a store applies to that store's
 * list_products only. Every scoped method takes the server-derived scope first; a rule of another
 * tenant or workspace behaves as missing. Lists are oldest first (created_at, then id). Rows are plain
 * shapes, the same on every backend (`created_at` ISO 8601 UTC with ms, `words` an array). Implementations:
 * SQLite (server/db/sqlite/synonyms.ts) and PostgreSQL
 * (server/db/postgres/synonyms.ts); both pass server/db/contract/synonym-store-contract.ts.
 */
export interface SynonymStore {
  /**
   * Add a rule of the workspace (`storeId` null) or of one of its stores.
   * @returns the stored row (new random UUID id, created now)
   * @throws the driver's error when a one-way rule has no input or a two-way rule has one (CHECK), or
   *   the store does not exist (foreign key); nothing is stored then
   */
  add(scope: Scope, storeId: string | null, rule: SynonymRule): Promise<SynonymRow>;
  /** Every rule of the workspace (its own and its stores'), oldest first. */
  list(scope: Scope): Promise<SynonymRow[]>;
  /**
   * The rules asset search applies: the workspace's own, oldest first, as bare rules (shared: not to be changed).
   * @param head the search change-log head the caller read for this request: a store may answer from
   *   the rules it read at the same head (every rule change moves it)
   */
  forAssets(scope: Scope, head?: number): Promise<readonly SynonymRule[]>;
  /**
   * The rules list_products applies in a store: the workspace's and that store's, oldest first, as bare
   * rules (shared: not to be changed). @param head as for `forAssets`
   */
  forStore(scope: Scope, storeId: string, head?: number): Promise<readonly SynonymRule[]>;
  /** The rule with this id and its tenant, for operator commands that name only the id (unscoped: never from an action). */
  byId(id: string): Promise<(SynonymRow & { tenant_id: string }) | undefined>;
  /** Delete a rule of the workspace. @returns whether it existed there */
  remove(scope: Scope, id: string): Promise<boolean>;
}
