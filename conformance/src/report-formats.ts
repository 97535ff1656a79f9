/**
 * A conformance report as a file for CI: JUnit XML (what CI systems display as test results)
 * or JSON (the report as it is, with each property's one-line description).
 * @module
 */
import type { ConformanceReport } from './run-conformance.js';

const xml = (text: string) =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    // Characters XML 1.0 cannot carry at all.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: they are what is removed.
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

/**
 * The report as a JUnit XML document: one `<testcase>` per property, a `<failure>` with the
 * reason (counterexample and seed) for each that failed.
 * @example
 * writeFileSync('conformance.xml', junitReport(report, { target: 'http://127.0.0.1:8080' }));
 */
export function junitReport(report: ConformanceReport, options: { target: string }): string {
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const total = report.results.reduce((sum, r) => sum + r.durationMs, 0);
  const cases = report.results.map((r) => {
    const open = `    <testcase classname="keyhold-conformance" name="${xml(r.name)}" time="${seconds(r.durationMs)}"`;
    const description = r.description
      ? `      <system-out>${xml(r.description)}</system-out>\n`
      : '';
    if (r.ok) return `${open}>\n${description}    </testcase>`;
    const first = (r.error ?? 'failed').split('\n')[0] ?? 'failed';
    return `${open}>\n      <failure message="${xml(first)}">${xml(r.error ?? '')}</failure>\n${description}    </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites tests="${report.results.length}" failures="${report.failed}" time="${seconds(total)}">`,
    `  <testsuite name="keyhold-conformance" hostname="${xml(options.target)}" tests="${report.results.length}" failures="${report.failed}" errors="0" skipped="0" time="${seconds(total)}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

/**
 * The report as JSON: the target, the sub-organization it ran in, the counts and every
 * property's result with its description.
 * @example
 * writeFileSync('conformance.json', jsonReport(report, { target: url }));
 */
export function jsonReport(
  report: ConformanceReport,
  options: { target: string; organizationId?: string },
): string {
  return `${JSON.stringify({ target: options.target, ...(options.organizationId ? { organizationId: options.organizationId } : {}), ...report }, null, 2)}\n`;
}
