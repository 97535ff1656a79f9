/**
 * A `pg` pool whose connections report the text of every query they send — each `query` is one
 * round trip (pg sends a query's messages at once and waits for its answer before the next).
 * For the deferred-BEGIN tests and `pnpm bench:round-trips`.
 * @module
 */
import pg from 'pg';

/**
 * @example
 * const sent: string[] = [];
 * const pool = observedPool(POSTGRES_URL, 1, (text) => sent.push(text));
 */
export function observedPool(
  connectionString: string,
  max: number,
  onQuery: (text: string) => void,
): pg.Pool {
  const pool = new pg.Pool({ connectionString, max });
  const observed = new WeakSet<pg.PoolClient>();
  const connect = pool.connect.bind(pool);
  (pool as { connect: () => Promise<pg.PoolClient> }).connect = async () => {
    const client = await connect();
    if (!observed.has(client)) {
      observed.add(client);
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args) => {
        const first = args[0] as string | { text: string };
        onQuery(typeof first === 'string' ? first : first.text);
        return query(...args);
      };
    }
    return client;
  };
  return pool;
}
