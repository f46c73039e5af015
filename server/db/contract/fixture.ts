/** What a contract suite needs from one implementation of a store port (the model: Keyv's `@keyv/test-suite`). */
export interface StoreFixture<S> {
  /** a store on a fresh, empty database */
  create: () => Promise<StoreHandle<S>>;
}

/** A store under test and the way to reach its database again. */
export interface StoreHandle<S> {
  store: S;
  /** another store on the same database through connections of its own, as a second server process has */
  open: () => Promise<S>;
}
