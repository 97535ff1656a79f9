/**
 * `keyhold policy check FILE` and `keyhold policy explain …`: the policy author's tools. `check`
 * runs offline; `explain` asks a running server why it would decide what it decides.
 * @module
 */

export const POLICY_USAGE = `usage: keyhold policy <command>

  check FILE      check a file of policies offline, as CREATE_POLICY would (see --help)
  explain         dry-run the decision on an activity body against a server (see --help)
`;

export async function runPolicyCommand(args: string[]): Promise<number> {
  const [command, ...rest] = args;
  switch (command) {
    // Lazily, like the top-level commands: `check` needs no HTTP client, `explain` no engine.
    case 'check':
      return (await import('./policy-check-command.js')).runPolicyCheckCommand(rest);
    case 'explain':
      return (await import('./policy-explain-command.js')).runPolicyExplainCommand(rest);
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(POLICY_USAGE);
      return 0;
    case undefined:
      process.stderr.write(POLICY_USAGE);
      return 2;
    default:
      process.stderr.write(`keyhold policy: unknown command "${command}"\n${POLICY_USAGE}`);
      return 2;
  }
}
