/**
 * `keyhold policy check FILE`: exit 0 when every policy passes, 1 when any fails, 2 on a usage
 * error (no file, unreadable, not JSON, not a document of policies).
 * @module
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { checkPolicyFile, PolicyFileError } from './policy-file-check.js';

export const POLICY_CHECK_USAGE = `usage: keyhold policy check FILE

Checks each policy of FILE offline, as CREATE_POLICY checks it when it is written: the syntax,
the keywords and their types, and the estimated evaluation cost. FILE is JSON: an array of
{policyName?, effect, condition?, consensus?, time?, notes?}, the parameters of CREATE_POLICIES
({"policies": [...]}), or one policy object.

Prints one line per policy (counted from 1):
  FILE: policy N (name): OK
  FILE: policy N (name): condition line L column C: what is wrong
followed, for a fault in an expression, by the offending line and a caret under the column.

Exit status: 0 all pass, 1 any fails, 2 usage error.
`;

export function runPolicyCheckCommand(args: string[]): number {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (error) {
    return usageError(error instanceof Error ? error.message : String(error));
  }
  if (parsed.values.help) {
    process.stdout.write(POLICY_CHECK_USAGE);
    return 0;
  }
  const [file, ...extra] = parsed.positionals;
  if (file === undefined) return usageError('a FILE of policies is required');
  if (extra.length > 0) return usageError(`one FILE at a time, got ${parsed.positionals.length}`);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    // Node's message names the cause and the path: "ENOENT: no such file or directory, open 'x'".
    return usageError(`cannot read ${file}: ${(error as Error).message}`, false);
  }
  try {
    const report = checkPolicyFile(file, text);
    if (report.policies === 0) process.stderr.write(`${file}: no policies\n`);
    process.stdout.write(report.lines.map((line) => `${line}\n`).join(''));
    return report.failed === 0 ? 0 : 1;
  } catch (error) {
    if (error instanceof PolicyFileError) return usageError(error.message, false);
    throw error;
  }
}

function parse(args: string[]) {
  return parseArgs({
    args,
    strict: true,
    allowPositionals: true,
    options: { help: { type: 'boolean', short: 'h' } },
  });
}

function usageError(message: string, withUsage = true): number {
  process.stderr.write(
    `keyhold policy check: ${message}\n${withUsage ? `\n${POLICY_CHECK_USAGE}` : ''}`,
  );
  return 2;
}
