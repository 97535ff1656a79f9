/**
 * Running the suite: every property against one target, one report.
 * @module
 */
import { ConformanceClient } from './client.js';
import { conformanceProperties } from './properties/index.js';
import type { ConformanceProperty, PropertyOptions } from './property.js';
import { type ConformanceTarget, httpTarget } from './target.js';

export interface PropertyResult {
  name: string;
  /** What the property asserts, in one sentence. */
  description?: string;
  ok: boolean;
  /** Why it failed: the assertion, the counterexample and the seed to replay it with. */
  error?: string;
  durationMs: number;
}

export interface ConformanceReport {
  passed: number;
  failed: number;
  results: PropertyResult[];
}

export interface RunAgainstOptions extends PropertyOptions {
  /**
   * Receives one entry per property (`ok   name (N ms)`, or `FAIL name (N ms)` followed by
   * indented lines saying why, with the counterexample and seed), then the summary line
   * `N passed, N failed`.
   */
  log?: (line: string) => void;
  /** Default: every property. */
  properties?: readonly ConformanceProperty[];
  /** Called as each property starts (1-based `index` of `total`): for progress lines. */
  onStart?: (property: ConformanceProperty, index: number, total: number) => void;
}

export interface RunConformanceOptions extends RunAgainstOptions {
  /** The implementation's base URL, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** A P-256 API private key (hex) of a root user of `organizationId`. */
  apiPrivateKey: string;
  /** Derived from the private key when omitted. */
  apiPublicKey?: string;
  organizationId: string;
}

/** The error message without stack frames (they point into the suite, not the target). */
function describeError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message
    .split('\n')
    .filter((line) => !/^\s+at /.test(line) && !line.startsWith('Hint: Enable verbose mode'))
    .join('\n')
    .trim();
}

/**
 * Can the suite act at all? A whoami with the target's key must answer 200 naming the
 * organization: otherwise every property would fail for the same reason (a wrong URL, key or
 * organization id), so none is run.
 */
async function preflight(target: ConformanceTarget): Promise<string | undefined> {
  try {
    const me = await new ConformanceClient(target).query('whoami');
    if (me.organizationId !== target.organizationId) {
      return `whoami names organization ${JSON.stringify(me.organizationId)}, not ${target.organizationId}`;
    }
    return undefined;
  } catch (error) {
    return describeError(error);
  }
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}

/** Runs the properties against any target and reports; never throws for a failed property. */
export async function runConformanceAgainst(
  target: ConformanceTarget,
  options: RunAgainstOptions = {},
): Promise<ConformanceReport> {
  const log = options.log ?? (() => {});
  const propertyOptions: PropertyOptions = {
    ...(options.numRuns === undefined ? {} : { numRuns: options.numRuns }),
    ...(options.seed === undefined ? {} : { seed: options.seed }),
  };
  const results: PropertyResult[] = [];
  const properties = options.properties ?? conformanceProperties;
  const blocked = await preflight(target);
  if (blocked !== undefined) {
    const error = `not run: the preflight whoami failed (check the URL, API key and organization id)\n${blocked}`;
    for (const property of properties) {
      results.push({
        name: property.name,
        description: property.description,
        ok: false,
        error,
        durationMs: 0,
      });
      log(`FAIL ${property.name} (not run)`);
    }
    log(indent(error));
    log(`0 passed, ${results.length} failed`);
    return { passed: 0, failed: results.length, results };
  }
  for (const [index, property] of properties.entries()) {
    options.onStart?.(property, index + 1, properties.length);
    const started = performance.now();
    try {
      await property.run(target, propertyOptions);
      const durationMs = Math.round(performance.now() - started);
      results.push({
        name: property.name,
        description: property.description,
        ok: true,
        durationMs,
      });
      log(`ok   ${property.name} (${durationMs} ms)`);
    } catch (error) {
      const durationMs = Math.round(performance.now() - started);
      const message = describeError(error);
      results.push({
        name: property.name,
        description: property.description,
        ok: false,
        error: message,
        durationMs,
      });
      log(`FAIL ${property.name} (${durationMs} ms)\n${indent(message)}`);
    }
  }
  const passed = results.filter((r) => r.ok).length;
  const failed = results.length - passed;
  log(`${passed} passed, ${failed} failed`);
  return { passed, failed, results };
}

/**
 * Runs every property against an implementation over HTTP.
 * @example
 * const report = await runConformance({
 *   baseUrl: 'http://127.0.0.1:8080', apiPrivateKey, organizationId, log: console.log,
 * });
 * process.exitCode = report.failed === 0 ? 0 : 1;
 */
export function runConformance(options: RunConformanceOptions): Promise<ConformanceReport> {
  const target = httpTarget({
    baseUrl: options.baseUrl,
    organizationId: options.organizationId,
    apiPrivateKey: options.apiPrivateKey,
    ...(options.apiPublicKey === undefined ? {} : { apiPublicKey: options.apiPublicKey }),
  });
  return runConformanceAgainst(target, options);
}
