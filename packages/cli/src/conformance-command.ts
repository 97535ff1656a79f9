/**
 * `keyhold conformance`: runs the conformance suite against a running implementation, in a
 * fresh sub-organization of the one given (so its test data never lands there), one line per
 * property saying what it checks as it starts, then its outcome; a connection failure names
 * its cause (refused, DNS, TLS, timeout); `--report FILE` writes JUnit XML or JSON for CI.
 * @module
 */
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import {
  ConformanceClient,
  type ConformanceReport,
  type ConformanceTarget,
  conformanceProperties,
  connectionFailure,
  httpTarget,
  jsonReport,
  junitReport,
  runConformanceAgainst,
  subOrganizationTarget,
  tenantFairness,
} from '@keyhold/conformance';

const USAGE = `usage: keyhold conformance --url URL --api-private-key HEX --organization-id ID
                           [--runs N] [--fairness] [--report FILE [--report-format junit|json]]

Runs the conformance suite against a running implementation of the Turnkey API. It acts as a
root user of the organization given (its API private key, P-256 hex) only to create a fresh
sub-organization, and runs every property there: the wallets, keys, users, policies and
activities the suite creates never land in the organization given.

  --runs N           generated cases per property (default 25)
  --fairness         also run tenant-fairness: flood from a sub-organization, measure p99 (a load test)
  --report FILE      write the results for CI: JUnit XML if FILE ends in .xml, else JSON
  --report-format F  junit or json, whatever FILE's name

Exit code: 0 when every property holds, 1 when one fails or the target cannot be reached (the
cause is named: connection refused, DNS, TLS, timeout), 2 for a usage error.
`;

class ConformanceUsageError extends Error {
  readonly code = 'ERR_PARSE_ARGS_CONFORMANCE';
}

export async function runConformanceCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      url: { type: 'string' },
      'api-private-key': { type: 'string' },
      'organization-id': { type: 'string' },
      runs: { type: 'string', default: '25' },
      fairness: { type: 'boolean' },
      report: { type: 'string' },
      'report-format': { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const url = values.url;
  const apiPrivateKey = values['api-private-key'];
  const organizationId = values['organization-id'];
  if (!url || !apiPrivateKey || !organizationId) {
    throw new ConformanceUsageError('--url, --api-private-key and --organization-id are required');
  }
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1) {
    throw new ConformanceUsageError(
      `--runs ${values.runs}: give a whole number of cases, 1 or more`,
    );
  }
  const format = values['report-format'] ?? (values.report?.endsWith('.xml') ? 'junit' : 'json');
  if (format !== 'junit' && format !== 'json') {
    throw new ConformanceUsageError(`--report-format ${format}: junit or json`);
  }
  if (!/^[0-9a-fA-F]{64}$/.test(apiPrivateKey)) {
    throw new ConformanceUsageError('--api-private-key: 64 hex characters (a P-256 private key)');
  }
  let given: ConformanceTarget;
  try {
    given = httpTarget({ baseUrl: url, organizationId, apiPrivateKey });
  } catch (error) {
    throw new ConformanceUsageError(`--api-private-key: ${(error as Error).message}`);
  }
  try {
    new URL(url);
  } catch {
    throw new ConformanceUsageError(`--url ${url} is not a URL (e.g. http://127.0.0.1:8080)`);
  }
  const properties = values.fairness
    ? [...conformanceProperties, tenantFairness]
    : conformanceProperties;
  const out = (line: string) => process.stdout.write(`${line}\n`);

  /** Stops before any property: every one is reported as not run, with the reason. */
  const blocked = async (reason: string): Promise<number> => {
    process.stderr.write(`keyhold conformance: ${reason}\n`);
    const report: ConformanceReport = {
      passed: 0,
      failed: properties.length,
      results: properties.map((p) => ({
        name: p.name,
        description: p.description,
        ok: false,
        error: `not run: ${reason}`,
        durationMs: 0,
      })),
    };
    await writeReport(report);
    return 1;
  };
  let ranIn: string | undefined;
  const writeReport = async (report: ConformanceReport) => {
    if (values.report === undefined) return;
    const text =
      format === 'junit'
        ? junitReport(report, { target: url })
        : jsonReport(report, { target: url, ...(ranIn ? { organizationId: ranIn } : {}) });
    await writeFile(values.report, text);
    out(`report: ${values.report} (${format})`);
  };

  // Can the suite reach the target and act as the key given? Say why not, precisely.
  out(`target: ${url}`);
  try {
    const me = await new ConformanceClient(given).query('whoami');
    if (me.organizationId !== organizationId) {
      return blocked(
        `whoami with this API key names organization ${JSON.stringify(me.organizationId)}, not ${organizationId}`,
      );
    }
  } catch (error) {
    const cause = connectionFailure(error, url);
    return blocked(
      cause
        ? `cannot reach ${url}: ${cause.message}`
        : `whoami with this API key failed (check --api-private-key and --organization-id): ${firstLine(error)}`,
    );
  }
  let target: ConformanceTarget;
  try {
    target = await subOrganizationTarget(given);
  } catch (error) {
    return blocked(`could not create the sub-organization to run in: ${firstLine(error)}`);
  }
  ranIn = target.organizationId;
  out(
    `running ${properties.length} properties in a new sub-organization ${ranIn} of ${organizationId}`,
  );
  const report = await runConformanceAgainst(target, {
    numRuns: runs,
    properties,
    onStart: (property, index, total) =>
      out(`[${index}/${total}] ${property.name}: ${property.description}`),
    log: out,
  });
  await writeReport(report);
  return report.failed === 0 ? 0 : 1;
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}
