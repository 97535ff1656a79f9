import { describe, expect, it } from 'vitest';
import type { ConformanceProperty } from './property.js';
import { runConformanceAgainst } from './run-conformance.js';
import { handlerTarget } from './target.js';

const ORG = '00000000-0000-4000-8000-000000000001';

function fakeTarget(whoamiOrganizationId: string | undefined) {
  return handlerTarget({
    organizationId: ORG,
    apiPrivateKey: '22'.repeat(32),
    handler: {
      async handle() {
        return whoamiOrganizationId === undefined
          ? {
              status: 401,
              headers: {},
              body: '{"code":16,"message":"could not verify api key signature","details":[]}',
            }
          : {
              status: 200,
              headers: {},
              body: JSON.stringify({ organizationId: whoamiOrganizationId }),
            };
      },
    },
  });
}

const property = (name: string, run: ConformanceProperty['run']): ConformanceProperty => ({
  name,
  description: name,
  run,
});

describe('runConformanceAgainst', () => {
  it('runs each property, reports failures with their reason, and ends with the summary line', async () => {
    const lines: string[] = [];
    const report = await runConformanceAgainst(fakeTarget(ORG), {
      log: (line) => lines.push(line),
      properties: [
        property('passes', async () => {}),
        property('fails', async () => {
          throw new Error('the reason\n    at someFrame (file.ts:1:1)');
        }),
      ],
    });
    expect(report.passed).toBe(1);
    expect(report.failed).toBe(1);
    expect(report.results.map((r) => [r.name, r.ok])).toEqual([
      ['passes', true],
      ['fails', false],
    ]);
    expect(report.results[1]!.error).toBe('the reason');
    expect(lines[0]).toMatch(/^ok {3}passes \(\d+ ms\)$/);
    expect(lines[1]).toMatch(/^FAIL fails \(\d+ ms\)\n {4}the reason$/);
    expect(lines.at(-1)).toBe('1 passed, 1 failed');
  });

  it('runs nothing when the target does not accept the key, and says why', async () => {
    let ran = false;
    const lines: string[] = [];
    const report = await runConformanceAgainst(fakeTarget(undefined), {
      log: (line) => lines.push(line),
      properties: [
        property('a', async () => {
          ran = true;
        }),
      ],
    });
    expect(ran).toBe(false);
    expect(report).toMatchObject({ passed: 0, failed: 1 });
    expect(report.results[0]!.error).toMatch(
      /preflight whoami failed[\s\S]*could not verify api key signature/,
    );
    expect(lines.at(-1)).toBe('0 passed, 1 failed');
  });

  it('runs nothing when whoami names another organization', async () => {
    const report = await runConformanceAgainst(fakeTarget('00000000-0000-4000-8000-000000000002'), {
      properties: [property('a', async () => {})],
    });
    expect(report.failed).toBe(1);
    expect(report.results[0]!.error).toMatch(/whoami names organization/);
  });
});
