/**
 * Names for the store's fixed statements, so a driver can parse and plan each one once per
 * connection (a named prepared statement) instead of on every call. The name is a hash of the
 * text: one text, one name, on every connection and in every process.
 * @module
 */
import { createHash } from 'node:crypto';

const names = new Map<string, string>();

/**
 * The prepared-statement name of a fixed statement's text. Only fixed texts reach here (the
 * `fixed` flag of `SqlClient.query`), so the cache holds a bounded set.
 * @example
 * await connection.query({ name: statementName(text), text, values });
 */
export function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `kh_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
    names.set(text, name);
  }
  return name;
}

/**
 * Postgres refuses a prepared statement whose result columns changed under it (a migration of
 * another instance added a column to a `SELECT *`'s table): SQLSTATE 0A000, "cached plan must
 * not change result type". The connection's statements are stale; it is dropped, not reused.
 */
export function stalePreparedStatement(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === '0A000' && typeof message === 'string' && /cached plan/.test(message);
}
