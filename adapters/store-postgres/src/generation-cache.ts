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
 *
 * **Assumed organizations** (`spec.assumed`). A signature's transaction reads its organization
 * (a round trip) only to learn the generations its cached reads are answered at, and then
 * writes once. With an assumption, a transaction that starts with that read is answered from
 * the row this instance last read for the organization (its version, `xmin`, and its parent's
 * with it), and its cached reads at those generations. The assumption is then either
 *  - checked by the write that ends the transaction: the store's guarded variant writes only
 *    while the organization's row and its parent's are the versions assumed (in the same
 *    statement, so under the same snapshot as the write), or nothing, and then the
 *    transaction is run again without assuming (`AssumptionFailed`);
 *  - or confirmed by reading the organization for real before any statement the cache cannot
 *    answer: the same versions, and the work goes on as without an assumption; others, and the
 *    work is run again without assuming. Once that happens every statement of the attempt
 *    fails, so a handler that catches an error cannot write on what was assumed.
 * A transaction that ends, returning or throwing, before either, is confirmed then: what it
 * returns or throws was worked out from the assumed rows. A decision is never written on rows
 * older than the database's at the moment of the write, which is no later than what the read
 * it replaces would have seen.
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
  /** Organizations assumed at the start of a transaction (see the module's comment). */
  readonly assumed?: AssumedOrganizationSpec;
}

/** The statements of an assumed organization (see the module's comment). */
export interface AssumedOrganizationSpec {
  /**
   * A generation read whose first parameter is the organization, and whose row carries
   * `row_version` and `parent_row_version` (the rows' `xmin`). Answered from the cache as the
   * first statement of a transaction.
   */
  readonly read: string;
  /** Its columns that depend on its other parameters: answered as NULL when assumed. */
  readonly perRequestColumns: readonly string[];
  /**
   * Last writes (sent with `last`) that check the assumption themselves, by text: the guarded
   * text takes the same parameters and then four more — organization id, its `row_version`,
   * the parent's id and `row_version` (NULL with no parent) — and returns no row when either
   * row is no longer that version (nothing written).
   */
  readonly guardedWrites: ReadonlyMap<string, string>;
}

/**
 * The attempt assumed an organization that had changed since: nothing of it was written, and
 * the store runs the transaction again without assuming.
 */
export class AssumptionFailed extends Error {
  constructor() {
    super('the organization assumed by this transaction had changed; it runs again');
    this.name = 'AssumptionFailed';
  }
}

/** The organization a transaction assumed, and what settles it. */
interface Assumption {
  readonly organizationId: string;
  readonly rowVersion: string;
  readonly parentId: string | null;
  readonly parentVersion: string | null;
  readonly params: readonly unknown[];
}

/** One transaction's client through the cache, and how its assumption stands. */
export interface CachedClient extends SqlClient {
  /**
   * Settles an assumption still standing when the work has ended (see the module's comment):
   * resolves when there was none or it held, rejects with AssumptionFailed otherwise.
   */
  settle(): Promise<void>;
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
  /** The organization rows last read, by id, for assumptions (see the module's comment). */
  readonly #organizations: LRUCache<string, Row>;
  /**
   * The parameters of the assumed reads answered lately: the same again (a client sending the
   * same body again) is read for real, so its stored activity is found before any work is done
   * on it rather than after.
   */
  readonly #assumedLately: LRUCache<string, true>;
  /** Reads answered from the cache, and cacheable reads that went to the database. */
  hits = 0;
  misses = 0;
  /** Transactions that assumed their organization, and those whose assumption failed. */
  assumed = 0;
  assumptionsFailed = 0;

  constructor(
    private readonly spec: GenerationCacheSpec,
    readonly capacity = 10_000,
  ) {
    this.#entries = new LRUCache({ max: capacity });
    this.#organizations = new LRUCache({ max: capacity });
    this.#assumedLately = new LRUCache({ max: capacity });
    this.#generationReads = new Set(spec.generationReads);
    this.#generationTables = new Set(spec.generationTables);
  }

  /**
   * The client of one transaction, through the cache; with `assume`, it may assume the
   * organization of its first statement (see the module's comment).
   */
  over(client: SqlClient, assume = false): CachedClient {
    const generations = new Map<string, string>();
    const assumedSpec = this.spec.assumed;
    let wrote = false;
    let first = true;
    let assumption: Assumption | undefined;
    // Set when the assumption failed: nothing more of this attempt may run.
    let failed = false;
    const learn = (rows: readonly Row[]) => {
      for (const row of rows) {
        if (row.generation !== undefined && row.generation !== null) {
          generations.set(String(row.organization_id), String(row.generation));
        }
        // Read with it: the parent's (a sub-organization's lookups span both).
        if (row.parent_generation !== undefined && row.parent_generation !== null) {
          generations.set(String(row.parent_organization_id), String(row.parent_generation));
        }
      }
    };
    // Reads the assumed organization for real: the work goes on without an assumption, or the
    // attempt fails.
    const confirm = async () => {
      const held = assumption!;
      assumption = undefined;
      const rows = await client.query<Row>(assumedSpec!.read, held.params, true);
      this.#keepOrganization(rows);
      const row = rows[0];
      const holds =
        row !== undefined &&
        String(row.row_version ?? '') === held.rowVersion &&
        (row.parent_row_version ?? null) === held.parentVersion &&
        assumedSpec!.perRequestColumns.every((c) => row[c] === null || row[c] === undefined);
      if (!holds) {
        failed = true;
        this.assumptionsFailed++;
        throw new AssumptionFailed();
      }
    };
    const query = async <R = Row>(
      text: string,
      params: readonly unknown[] = [],
      fixed?: boolean,
      last?: boolean,
    ): Promise<R[]> => {
      if (failed) throw new AssumptionFailed();
      const isFirst = first;
      first = false;
      if (assumption) {
        const guarded = last ? assumedSpec!.guardedWrites.get(text) : undefined;
        if (guarded !== undefined) {
          const held = assumption;
          assumption = undefined;
          wrote = true;
          const rows = await client.query<R>(
            guarded,
            [...params, held.organizationId, held.rowVersion, held.parentId, held.parentVersion],
            fixed,
            last,
          );
          if (rows.length === 0) {
            failed = true;
            this.assumptionsFailed++;
            throw new AssumptionFailed();
          }
          return rows;
        }
        const read = this.spec.cacheable.get(text);
        const at = read && generationsOf(read, params, generations);
        const hit = at === undefined ? undefined : this.#hit(cacheKey(text, params), at);
        if (hit) return hit as R[];
        await confirm();
      }
      if (wrote) return client.query<R>(text, params, fixed, last);
      if (this.#generationReads.has(text)) {
        if (assume && isFirst && assumedSpec && text === assumedSpec.read) {
          const kept = this.#organizations.get(String(params[0]));
          const lately = JSON.stringify(params);
          if (kept && !this.#assumedLately.has(lately)) {
            this.#assumedLately.set(lately, true);
            const row = klona(kept);
            for (const column of assumedSpec.perRequestColumns) row[column] = null;
            assumption = {
              organizationId: String(row.organization_id),
              rowVersion: String(row.row_version),
              parentId: row.parent_row_version == null ? null : String(row.parent_organization_id),
              parentVersion: row.parent_row_version == null ? null : String(row.parent_row_version),
              params,
            };
            this.assumed++;
            learn([row]);
            return [row] as R[];
          }
        }
        const rows = await client.query<Row>(text, params, fixed);
        if (assumedSpec && text === assumedSpec.read) this.#keepOrganization(rows);
        learn(rows);
        return rows as R[];
      }
      const read = this.spec.cacheable.get(text);
      if (read) {
        const at = generationsOf(read, params, generations);
        if (at === undefined) return client.query<R>(text, params, fixed);
        const key = cacheKey(text, params);
        const hit = this.#hit(key, at);
        if (hit) return hit as R[];
        this.misses++;
        const rows = await client.query<Row>(text, params, fixed);
        if (!wrote) this.#entries.set(key, { generations: at, rows: klona(rows) });
        return rows as R[];
      }
      if (this.#writesGenerationTable(text)) wrote = true;
      return client.query<R>(text, params, fixed, last);
    };
    return {
      query,
      exec: async (script: string) => {
        if (failed) throw new AssumptionFailed();
        if (assumption) await confirm();
        wrote = true;
        await client.exec(script);
      },
      settle: async () => {
        if (failed) throw new AssumptionFailed();
        if (assumption) await confirm();
      },
    };
  }

  /** The answer kept under `key` at generations `at` (a copy), or undefined. */
  #hit(key: string, at: string): Row[] | undefined {
    const entry = this.#entries.get(key);
    if (!entry || entry.generations !== at) return undefined;
    this.hits++;
    return klona(entry.rows);
  }

  /** Keeps an organization's row as the assumed read returned it, for later assumptions. */
  #keepOrganization(rows: readonly Row[]): void {
    const row = rows[0];
    if (row === undefined || row.organization_id == null || row.row_version == null) return;
    const kept = klona(row);
    for (const column of this.spec.assumed?.perRequestColumns ?? []) delete kept[column];
    this.#organizations.set(String(row.organization_id), kept);
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

/** The key of a cacheable read's answer: its text and parameters. */
const cacheKey = (text: string, params: readonly unknown[]) =>
  `${text}\u0000${JSON.stringify(params)}`;

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
