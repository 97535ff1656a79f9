/**
 * `keyhold conformance`: runs the conformance suite against a running implementation.
 * @module
 */
import { parseArgs } from 'node:util';
import { runConformance } from '@keyhold/conformance';

export async function runConformanceCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      url: { type: 'string' },
      'api-private-key': { type: 'string' },
      'organization-id': { type: 'string' },
      runs: { type: 'string', default: '25' },
    },
  });
  if (!values.url || !values['api-private-key'] || !values['organization-id']) {
    process.stderr.write(
      'usage: keyhold conformance --url URL --api-private-key HEX --organization-id ID [--runs N]\n',
    );
    return 2;
  }
  const report = await runConformance({
    baseUrl: values.url,
    apiPrivateKey: values['api-private-key'],
    organizationId: values['organization-id'],
    numRuns: Number(values.runs),
    log: (line) => process.stdout.write(`${line}\n`),
  });
  return report.failed === 0 ? 0 : 1;
}
