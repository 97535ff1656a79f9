/**
 * `keyhold conformance`: runs the conformance suite against a running implementation.
 * @module
 */
import { parseArgs } from 'node:util';
import { conformanceProperties, runConformance, tenantFairness } from '@keyhold/conformance';

const USAGE = `usage: keyhold conformance --url URL --api-private-key HEX --organization-id ID [--runs N] [--fairness]

Runs the conformance suite against a running implementation, acting as a root user of the
organization (its API private key, P-256 hex). It writes test data into that organization.

  --runs N      generated cases per property (default 25)
  --fairness    also run tenant-fairness: flood from a sub-organization, measure p99 (a load test)
`;

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
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (!values.url || !values['api-private-key'] || !values['organization-id']) {
    process.stderr.write(
      `keyhold conformance: --url, --api-private-key and --organization-id are required\n${USAGE}`,
    );
    return 2;
  }
  const report = await runConformance({
    baseUrl: values.url,
    apiPrivateKey: values['api-private-key'],
    organizationId: values['organization-id'],
    numRuns: Number(values.runs),
    ...(values.fairness ? { properties: [...conformanceProperties, tenantFairness] } : {}),
    log: (line) => process.stdout.write(`${line}\n`),
  });
  return report.failed === 0 ? 0 : 1;
}
