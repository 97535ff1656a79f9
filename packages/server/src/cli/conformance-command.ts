/**
 * `keyhold conformance`: runs the conformance suite against a running implementation.
 * @module
 */
import { parseArgs } from 'node:util';
import { conformanceProperties, runConformance, tenantFairness } from '@keyhold/conformance';

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
    },
  });
  if (!values.url || !values['api-private-key'] || !values['organization-id']) {
    process.stderr.write(
      'usage: keyhold conformance --url URL --api-private-key HEX --organization-id ID [--runs N] [--fairness]\n' +
        '  --fairness  also run tenant-fairness: flood from a sub-organization, measure p99 (a load test)\n',
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
