/**
 * What a store instance keeps of the reads every request repeats — the credential lookup, the
 * policies, the signing key by address, the webhook endpoints — for as long as their
 * organization's generation stays the same.
 *
 * Migration 0023 gives each organization a `generation` and a trigger on every table those
 * reads select from, which gives the organizations of a changed row a new generation in the
 * transaction that changes it: the generation moves exactly when what the reads would return may
 * have changed, and commits with the change. A transaction reads its organization (and with it
 * the generation, and its parent's) before anything else; a cacheable read made after that, for
 * organizations whose generations it has read, is answered from an earlier answer given at the
 * same generations — which is what the database returns now, or returned at a moment of this
 * transaction. Nothing is answered from the cache once the transaction has written to one of
 * those tables (it must see its own writes), and nothing it reads after that is kept. Instances
 * sharing a database each keep their own; a change by one moves the generation the others read.
 *
 * It lives between the store and the driver, per transaction (`over`), and knows statements by
 * their text: the store names the statements that read a generation and those it may answer.
 * @module
 */
import { klona } from 'klona';
import { LRUCache } from 'lru-cache';
import type { Row, SqlClient } from './sql-client.js';

/** A read the cache may answer: which of its parameters are organization ids. */
export interface CacheableRead {
  /** Positions (from 0) of the parameters that name organizations; a null one names none. */
  readonly organizationParams: readonly number[];
}

/** What the cache knows of the store's statements and schema. */
export interface GenerationCacheSpec {
  /**
   * Statements whose rows carry `organization_id` and `generation` (reading an organization),
   * and may carry `parent_organization_id` and `parent_generation`.
   */
  readonly generationReads: readonly string[];
  /** The reads it may answer, by statement text. */
  readonly cacheable: ReadonlyMap<string, CacheableRead>;
  /** The tables whose triggers move the generation (migration 0023). */
  readonly generationTables: readonly string[];
}

interface Entry {
  readonly generations: string;
  readonly rows: Row[];
}

/** `INSERT INTO t`, `UPDATE t`, `DELETE FROM t`, `TRUNCATE t`: the tables a statement writes. */
const WRITTEN_TABLE =
  /\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM|TRUNCATE(?:\s+TABLE)?)\s+([a-z_]+)/gi;

/**
 * The cache of one store instance: at most `capacity` answers, the least recently used dropped
 * first.
 * @example
 * const cache = new GenerationCache(spec);
 * await driver.transaction((client) => work(cache.over(client)));
 */
export class GenerationCache {
  readonly #entries: LRUCache<string, Entry>;
  readonly #generationReads: ReadonlySet<string>;
  readonly #generationTables: ReadonlySet<string>;
  /** Whether a statement writes a generation table, by its text (the store's texts are few). */
  readonly #writes = new Map<string, boolean>();
  /** Reads answered from the cache, and cacheable reads that went to the database. */
  hits = 0;
  misses = 0;

  constructor(
    private readonly spec: GenerationCacheSpec,
    readonly capacity = 10_000,
  ) {
    this.#entries = new LRUCache({ max: capacity });
    this.#generationReads = new Set(spec.generationReads);
    this.#generationTables = new Set(spec.generationTables);
  }

  /** The client of one transaction, through the cache. */
  over(client: SqlClient): SqlClient {
    const generations = new Map<string, string>();
    let wrote = false;
    return {
      query: async <R = Row>(
        text: string,
        params: readonly unknown[] = [],
        fixed?: boolean,
        last?: boolean,
      ) => {
        if (wrote) return client.query<R>(text, params, fixed, last);
        if (this.#generationReads.has(text)) {
          const rows = await client.query<Row>(text, params, fixed);
          for (const row of rows) {
            if (row.generation !== undefined && row.generation !== null) {
              generations.set(String(row.organization_id), String(row.generation));
            }
            // Read with it: the parent's (a sub-organization's lookups span both).
            if (row.parent_generation !== undefined && row.parent_generation !== null) {
              generations.set(String(row.parent_organization_id), String(row.parent_generation));
            }
          }
          return rows as R[];
        }
        const read = this.spec.cacheable.get(text);
        if (read) {
          const at = generationsOf(read, params, generations);
          if (at === undefined) return client.query<R>(text, params, fixed);
          const key = `${text}\u0000${JSON.stringify(params)}`;
          const entry = this.#entries.get(key);
          if (entry && entry.generations === at) {
            this.hits++;
            return klona(entry.rows) as R[];
          }
          this.misses++;
          const rows = await client.query<Row>(text, params, fixed);
          if (!wrote) this.#entries.set(key, { generations: at, rows: klona(rows) });
          return rows as R[];
        }
        if (this.#writesGenerationTable(text)) wrote = true;
        return client.query<R>(text, params, fixed, last);
      },
      exec: async (script: string) => {
        wrote = true;
        await client.exec(script);
      },
    };
  }

  #writesGenerationTable(text: string): boolean {
    let writes = this.#writes.get(text);
    if (writes === undefined) {
      writes = [...text.matchAll(WRITTEN_TABLE)].some((m) =>
        this.#generationTables.has(m[1]!.toLowerCase()),
      );
      // Statements built from varying parts (paging) are not remembered: the map stays small.
      if (this.#writes.size < 1_000) this.#writes.set(text, writes);
    }
    return writes;
  }
}

/**
 * The generations of the organizations a read names, as this transaction read them; undefined
 * when it has not read one of them (then the read goes to the database).
 */
function generationsOf(
  read: CacheableRead,
  params: readonly unknown[],
  known: ReadonlyMap<string, string>,
): string | undefined {
  const parts: string[] = [];
  for (const position of read.organizationParams) {
    const organizationId = params[position];
    if (organizationId === null || organizationId === undefined) {
      parts.push('');
      continue;
    }
    const generation = known.get(String(organizationId));
    if (generation === undefined) return undefined;
    parts.push(`${String(organizationId)}@${generation}`);
  }
  return parts.join(',');
}
