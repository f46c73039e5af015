/**
 * Whether a store threw because a unique constraint refused the write: SQLite (better-sqlite3 `code`
 * SQLITE_CONSTRAINT_UNIQUE or SQLITE_CONSTRAINT_PRIMARYKEY,
 * https://www.sqlite.org/rescode.html#constraint_unique) or PostgreSQL (SQLSTATE 23505 unique_violation,
 * https://www.postgresql.org/docs/15/errcodes-appendix.html). Use cases branch on it (a concurrent
 * duplicate import) without knowing the backend.
 */
export function isUniqueViolation(e: unknown): boolean {
  if (typeof e !== 'object' || e === null) return false;
  const code = (e as { code?: unknown }).code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
}
