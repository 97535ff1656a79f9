/**
 * `keyhold policy explain`: posts an activity body to a server's dry run
 * (`POST /keyhold/v1/explain_policies`), stamped with a P-256 API key, and prints why the
 * server would decide what it decides. Exit 0 with an answer, 1 when the server refused or
 * could not be reached (the cause named), 2 on a usage error.
 * @module
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { PolicyExplanation } from '@keyhold/activities';
import { createApiKeyStamper, EXPLAIN_POLICIES_PATH } from '@keyhold/server';
import { explanationLines } from './explanation-text.js';

export const POLICY_EXPLAIN_USAGE = `usage: keyhold policy explain --url URL --api-private-key HEX --organization-id ID --body FILE [--json]

Asks the server at URL how its policies decide the activity in FILE, without running or storing
anything (POST ${EXPLAIN_POLICIES_PATH}, a Keyhold extension). The request is stamped with the
P-256 API key HEX (64 hex characters); its user is the submitter the decision counts.

FILE is the activity body you would submit: {"type": "ACTIVITY_TYPE_…", "parameters": {…}}, with
"organizationId" and "timestampMs" filled in from --organization-id and the clock when absent.

Prints the decision and its reason, what submit would do, the deciding policies and each
policy's outcome, with the reason of an error; --json prints the server's answer as it is.

Exit status: 0 answered, 1 refused by the server or unreachable, 2 usage error.
`;

const TIMEOUT_MS = 30_000;

export async function runPolicyExplainCommand(args: string[]): Promise<number> {
  let values: ReturnType<typeof parse>['values'];
  try {
    ({ values } = parse(args));
  } catch (error) {
    return usageError(error instanceof Error ? error.message : String(error));
  }
  if (values.help) {
    process.stdout.write(POLICY_EXPLAIN_USAGE);
    return 0;
  }
  const { url, 'api-private-key': privateKey, 'organization-id': organizationId } = values;
  if (!url || !privateKey || !organizationId || !values.body) {
    return usageError('--url, --api-private-key, --organization-id and --body are required');
  }
  let endpoint: URL;
  try {
    const base = new URL(url);
    if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new Error();
    // Kept: a server mounted under a prefix (`http://host/keyhold-api`) serves it there.
    endpoint = new URL(
      `${base.origin}${base.pathname.replace(/\/+$/, '')}${EXPLAIN_POLICIES_PATH}`,
    );
  } catch {
    return usageError(`--url must be an http(s) URL, got "${url}"`, false);
  }
  if (!/^[0-9a-fA-F]{64}$/.test(privateKey)) {
    return usageError('--api-private-key must be 64 hex characters (a P-256 scalar)', false);
  }
  let activity: Record<string, unknown>;
  try {
    activity = activityOfFile(values.body, organizationId);
  } catch (error) {
    return usageError(error instanceof Error ? error.message : String(error), false);
  }

  const body = JSON.stringify({ organizationId, activity });
  let response: Response;
  try {
    response = await fetch(endpoint, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'x-stamp': createApiKeyStamper(privateKey).stamp(body),
      },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    process.stderr.write(`keyhold policy explain: cannot reach ${url}: ${causeOf(error)}\n`);
    return 1;
  }
  const text = await response.text();
  if (values.json) process.stdout.write(`${text}\n`);
  if (response.status !== 200) {
    process.stderr.write(`keyhold policy explain: refused: ${refusalOf(response.status, text)}\n`);
    return 1;
  }
  if (!values.json) {
    const explanation = JSON.parse(text) as PolicyExplanation;
    process.stdout.write(
      explanationLines(explanation)
        .map((line) => `${line}\n`)
        .join(''),
    );
  }
  return 0;
}

function parse(args: string[]) {
  return parseArgs({
    args,
    strict: true,
    options: {
      url: { type: 'string' },
      'api-private-key': { type: 'string' },
      'organization-id': { type: 'string' },
      body: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

/** The activity body of FILE, with the organization and a fresh timestamp when absent. */
function activityOfFile(file: string, organizationId: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read ${file}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(`${file} must hold one activity body (a JSON object)`);
  }
  return {
    ...parsed,
    organizationId: (parsed as { organizationId?: unknown }).organizationId ?? organizationId,
    timestampMs: (parsed as { timestampMs?: unknown }).timestampMs ?? String(Date.now()),
  };
}

/** Why fetch failed, by its cause's code where there is one (ECONNREFUSED, ENOTFOUND, …). */
function causeOf(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') {
    return `no answer within ${TIMEOUT_MS / 1000} s`;
  }
  const cause = (error as { cause?: unknown }).cause;
  // Dual-stack connects fail with an AggregateError whose errors carry the codes.
  const inner =
    cause instanceof AggregateError && cause.errors.length > 0 ? cause.errors[0] : cause;
  const code = (inner as { code?: unknown } | undefined)?.code;
  const message = inner instanceof Error ? inner.message : String(error);
  if (typeof code === 'string') return message.includes(code) ? `${code} (${message})` : code;
  return message;
}

/** A refusal's status line: the Status body's message and code, or the text the server sent. */
function refusalOf(status: number, text: string): string {
  try {
    const { code, message, details } = JSON.parse(text) as {
      code?: unknown;
      message?: unknown;
      details?: unknown;
    };
    if (typeof message === 'string') {
      const extra =
        Array.isArray(details) && details.length > 0 ? ` ${JSON.stringify(details)}` : '';
      return `HTTP ${status}: ${message} (code ${String(code)})${extra}`;
    }
  } catch {
    // Not a Status body (a 429 in plain text, a proxy's page): say what came.
  }
  return `HTTP ${status}: ${text.trim().slice(0, 500) || '(empty body)'}`;
}

function usageError(message: string, withUsage = true): number {
  process.stderr.write(
    `keyhold policy explain: ${message}\n${withUsage ? `\n${POLICY_EXPLAIN_USAGE}` : ''}`,
  );
  return 2;
}
