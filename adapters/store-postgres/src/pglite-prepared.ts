/**
 * Named prepared statements on PGlite, through its wire protocol. PGlite's `query` parses,
 * plans and describes every statement anew (the unnamed statement) in five calls into the
 * WebAssembly; here a fixed statement is parsed once per PGlite session (Close, Parse,
 * Describe, Sync in one call) and each use is Bind, Describe, Execute, Sync in one call.
 * Parameters are serialized and rows parsed as `query` does (PGlite 0.5's `#runQuery`: the
 * instance's serializers by parameter type, else `toString()`; `parse.parseResults` with the
 * instance's parsers).
 * @module
 */
import { type PGlite, parse, protocol, type Transaction } from '@electric-sql/pglite';
import { StoreUnavailableError } from '@keyhold/activities';
import { stalePreparedStatement, statementName } from './prepared-statements.js';
import type { Row } from './sql-client.js';

const { serialize } = protocol;

/**
 * The parameter types of each statement prepared in a PGlite session, by name. Keyed by the
 * instance: stores sharing one PGlite share its session's statements. Prepared statements
 * outlive the transaction that made them (a ROLLBACK keeps them).
 */
const sessions = new WeakMap<PGlite, Map<string, number[]>>();

/** SQLSTATE 26000: the named statement is gone (DEALLOCATE by another user of the session). */
const INVALID_STATEMENT_NAME = '26000';

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Parses and describes `text` as `name` (closing any statement left under that name). */
async function prepare(db: PGlite, name: string, text: string): Promise<number[]> {
  const messages = await db.execProtocolStream(
    concat([
      serialize.close({ type: 'S', name }),
      serialize.parse({ name, text }),
      serialize.describe({ type: 'S', name }),
      serialize.sync(),
    ]),
    { syncToFs: false },
  );
  return parse.parseDescribeStatementResults(messages);
}

/**
 * Runs a fixed statement on `db` as a named prepared statement, inside the caller's
 * transaction; resolves to its rows as `db.query(text, params).rows` would.
 * @example
 * const rows = await queryPrepared(db, 'SELECT * FROM organizations WHERE organization_id = $1', [id]);
 */
export function queryPrepared(
  db: PGlite,
  text: string,
  params: readonly unknown[] = [],
): Promise<Row[]> {
  // PGlite's query mutex: one protocol exchange at a time, as its own `query` takes it.
  return db._runExclusiveQuery(async () => {
    let statements = sessions.get(db);
    if (!statements) {
      statements = new Map();
      sessions.set(db, statements);
    }
    const name = statementName(text);
    let types = statements.get(name);
    if (types === undefined) {
      types = await prepare(db, name, text);
      statements.set(name, types);
    }
    const values = params.map((param, i) => {
      if (param === null || param === undefined) return null;
      const serializer = db.serializers[types[i] as number];
      return serializer ? serializer(param) : String(param);
    });
    try {
      const messages = await db.execProtocolStream(
        concat([
          serialize.bind({ statement: name, values }),
          serialize.describe({ type: 'P' }),
          serialize.execute({}),
          serialize.sync(),
        ]),
        { syncToFs: false },
      );
      return (parse.parseResults(messages, db.parsers)[0]?.rows ?? []) as Row[];
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (stalePreparedStatement(error) || code === INVALID_STATEMENT_NAME) {
        // Prepared anew on the next use; this transaction is aborted, a retry succeeds.
        statements.delete(name);
        const unavailable = new StoreUnavailableError('prepared statement outdated');
        unavailable.cause = error;
        throw unavailable;
      }
      throw error;
    }
  });
}

/**
 * One statement in an open transaction `tx` of `db`: a fixed one as a named prepared statement,
 * any other through PGlite's `query`. Both PGlite drivers run their statements with it.
 * @example
 * const rows = await queryIn(db, tx, 'SELECT * FROM wallets WHERE organization_id = $1', [id], true);
 */
export async function queryIn(
  db: PGlite,
  tx: Transaction,
  text: string,
  params: readonly unknown[] | undefined,
  fixed: boolean | undefined,
): Promise<Row[]> {
  return fixed
    ? queryPrepared(db, text, params)
    : ((await tx.query(text, params as unknown[] | undefined)).rows as Row[]);
}

/**
 * One statement outside any transaction, committed as it completes. It takes PGlite's
 * transaction mutex, as PGlite's own `query` does, so it never runs inside another's open
 * transaction (see deferred-begin.ts).
 * @example
 * const rows = await queryAlone(db, 'SELECT * FROM organizations WHERE organization_id = $1', [id], true);
 */
export async function queryAlone(
  db: PGlite,
  text: string,
  params: readonly unknown[] | undefined,
  fixed: boolean | undefined,
): Promise<Row[]> {
  if (!fixed) return (await db.query(text, params as unknown[] | undefined)).rows as Row[];
  return db._runExclusiveTransaction(async () => {
    const rows = await queryPrepared(db, text, params);
    await db.syncToFs();
    return rows;
  });
}
