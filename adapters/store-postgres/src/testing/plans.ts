/**
 * Query plans for the tests that assert what a statement reads: a driver that records the
 * statements the store runs (so a test explains exactly those), and `EXPLAIN … FORMAT JSON`
 * read back as plan nodes.
 * @module
 */
import type { SqlClient, SqlDriver } from '../sql-client.js';

/** A statement the store ran, with its parameters. */
export interface Statement {
  text: string;
  params: unknown[];
}

/** One node of an EXPLAIN plan, read field by field (`Node Type`, `Relation Name`, …). */
// biome-ignore lint/suspicious/noExplicitAny: plan JSON, read node by node
export type PlanNode = Record<string, any>;

/**
 * A driver over `inner` that records the statements the store runs while `capture` runs (and
 * passes every argument through, so the store runs as it does in production).
 * @example
 * const driver = new RecordingDriver(new PgDriver(pool, schema, true));
 * const [statement] = await driver.capture(() => store.transaction((tx) => tx.users.list(org)));
 */
export class RecordingDriver implements SqlDriver {
  readonly kind: SqlDriver['kind'];
  private recording = false;
  private statements: Statement[] = [];

  constructor(readonly inner: SqlDriver) {
    this.kind = inner.kind;
  }

  transaction<T>(work: (client: SqlClient) => Promise<T>): Promise<T> {
    return this.inner.transaction((client) =>
      work({
        query: (text, params, fixed, last) => {
          if (this.recording) this.statements.push({ text, params: [...(params ?? [])] });
          return client.query(text, params, fixed, last);
        },
        exec: (script) => client.exec(script),
      }),
    );
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** Runs `work`, returning the statements the store ran meanwhile. */
  async capture(work: () => Promise<unknown>): Promise<Statement[]> {
    this.statements = [];
    this.recording = true;
    try {
      await work();
    } finally {
      this.recording = false;
    }
    return this.statements;
  }
}

/** Every plan node, depth first. */
export function planNodes(plan: PlanNode): PlanNode[] {
  return [plan, ...((plan.Plans as PlanNode[] | undefined) ?? []).flatMap(planNodes)];
}

/** The plan in the rows of an `EXPLAIN (…, FORMAT JSON)` (pg parses the JSON, PGlite does not). */
export function explainedPlan(rows: Record<string, unknown>[]): {
  plan: PlanNode;
  executionMs: number;
} {
  const raw = Object.values(rows[0]!)[0];
  const [json] = (typeof raw === 'string' ? JSON.parse(raw) : raw) as {
    Plan: PlanNode;
    'Execution Time': number;
  }[];
  return { plan: json!.Plan, executionMs: json!['Execution Time'] };
}

/** A literal for EXECUTE's arguments (text, numbers, booleans, text arrays, NULL). */
function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'boolean' || typeof value === 'number') return String(value);
  if (Array.isArray(value)) return `ARRAY[${value.map(literal).join(', ')}]::text[]`;
  return `'${String(value).replaceAll("'", "''")}'`;
}

/**
 * `EXPLAIN ANALYZE` of a statement on `driver` (not recorded: pass the inner driver). With
 * `generic`, the plan Postgres keeps for a prepared statement after its first runs, chosen
 * without the parameters' values (`plan_cache_mode = force_generic_plan`).
 */
export async function explain(
  driver: SqlDriver,
  statement: Statement,
  { generic = false }: { generic?: boolean } = {},
): Promise<{ plan: PlanNode; executionMs: number }> {
  return driver.transaction(async (c) => {
    if (!generic) {
      return explainedPlan(
        await c.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement.text}`, statement.params),
      );
    }
    await c.query('SET LOCAL plan_cache_mode = force_generic_plan');
    await c.query(`PREPARE keyhold_plan_probe AS ${statement.text}`);
    const rows = await c.query(
      `EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE keyhold_plan_probe(${statement.params.map(literal).join(', ')})`,
    );
    await c.query('DEALLOCATE keyhold_plan_probe');
    return explainedPlan(rows);
  });
}
