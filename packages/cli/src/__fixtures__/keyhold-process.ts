/**
 * `keyhold …` as a child process, run as a user runs it from the repository (tsx, sources):
 * its stdout lines, its stderr, when it last wrote there, and its exit code. Every process
 * started here is killed by `killKeyholdProcesses` (call it in `afterAll`).
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const REPOSITORY_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

export interface KeyholdProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** `performance.now()` of the last stderr output (the start, before any). */
  lastStderrAt(): number;
  /** The next stdout line (undefined once stdout ends). */
  firstLine(): Promise<string>;
  /** The exit code, waiting for the exit if need be. */
  exit(): Promise<number>;
}

const started: ChildProcessWithoutNullStreams[] = [];

/**
 * The node arguments that run `keyhold <args>`: the built CLI (`packages/cli/dist/main.js`)
 * when `KEYHOLD_TEST_CLI=dist` — what `pnpm test` sets, after `tsc -b` has built it; a process
 * then starts on about a third of the CPU that compiling the sources on the fly takes, which
 * decides whether dozens of CLI processes fit a loaded CI machine — else the sources, through
 * tsx (a test run straight after an edit needs no build).
 * @example
 * spawn(process.execPath, keyholdNodeArgs(['serve', '--memory']), { cwd: REPOSITORY_ROOT });
 */
export function keyholdNodeArgs(args: readonly string[]): string[] {
  return process.env.KEYHOLD_TEST_CLI === 'dist'
    ? ['packages/cli/dist/main.js', ...args]
    : ['--import', 'tsx', '--conditions=keyhold-source', 'packages/cli/src/main.ts', ...args];
}

/**
 * Starts `keyhold <args>`. `KEYHOLD_MASTER_KEY` is unset unless `env` sets it.
 * @example
 * const run = keyholdProcess(['serve', '--memory', '--port', '0']);
 * const { url } = JSON.parse(await run.firstLine());
 */
export function keyholdProcess(
  args: readonly string[],
  env: Record<string, string | undefined> = {},
): KeyholdProcess {
  const child = spawn(process.execPath, keyholdNodeArgs(args), {
    cwd: REPOSITORY_ROOT,
    env: { ...process.env, KEYHOLD_MASTER_KEY: undefined, ...env },
  });
  started.push(child);
  let stderr = '';
  let lastStderrAt = performance.now();
  child.stderr.on('data', (d) => {
    stderr += d;
    lastStderrAt = performance.now();
  });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  return {
    child,
    stderr: () => stderr,
    lastStderrAt: () => lastStderrAt,
    firstLine: async () => (await lines.next()).value as string,
    exit: async () => (child.exitCode ?? (await once(child, 'exit'))[0]) as number,
  };
}

/** Kills (SIGKILL) every process `keyholdProcess` started that is still running. */
export function killKeyholdProcesses(): void {
  for (const child of started.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
}

/** The fields of `keyhold serve`'s listening line every test reads (it has more). */
export interface ListeningLine {
  readonly url: string;
  readonly organizationId: string;
  readonly [field: string]: string;
}

/**
 * Starts `keyhold serve` as the tests run it: on a free port, signing in-process (many servers
 * share a small machine), `root` bootstrapped as the root user's API key, in memory unless
 * `options.data` names a `--data` directory; then `flags`.
 * @example
 * const run = keyholdServe(root, ['--smtp', mailbox.url]);
 * const line = await listeningLine(run);
 */
export function keyholdServe(
  root: { readonly publicKey: string },
  flags: readonly string[] = [],
  options: { data?: string; env?: Record<string, string | undefined> } = {},
): KeyholdProcess {
  return keyholdProcess(
    [
      'serve',
      ...(options.data === undefined ? ['--memory'] : ['--data', options.data]),
      '--port',
      '0',
      '--crypto-threads',
      '0',
      '--bootstrap-api-public-key',
      root.publicKey,
      ...flags,
    ],
    options.env,
  );
}

/**
 * The listening line of a started `keyhold serve`: its first line on stdout, read as `T` (the
 * fields the test reads).
 */
export async function listeningLine<T extends ListeningLine = ListeningLine>(
  run: KeyholdProcess,
): Promise<T> {
  const line = await run.firstLine();
  if (line === undefined) throw new Error(`keyhold serve did not start:\n${run.stderr()}`);
  return JSON.parse(line) as T;
}
