/**
 * `keyhold audit verify | export`: the tamper-evident audit log, read offline from a store.
 * `verify` recomputes every organization's chain and names the first broken link; `export`
 * writes the chains as JSON lines that a script can re-check with SHA-256 alone:
 * `hash == sha256hex(prevHash + "\n" + body)`, `prevHash` of the first entry 64 zeros.
 * @module
 */
import {
  AUDIT_GENESIS_HASH,
  type AuditHeadRecord,
  auditChainChecker,
  type Store,
} from '@keyhold/activities';
import { resolveSettings } from './configuration.js';
import { openStoreForReading, STORE_OPTIONS, StoreUnreadableError } from './read-only-store.js';
import { DEFAULT_DATA_DIR } from './store-selection.js';

const HELP = `usage: keyhold audit verify|export [--data DIR | --postgres URL] [--organization-id ID]

  verify   recompute every organization's audit chain (or one, with --organization-id):
           one JSON line per chain, {"organizationId","entries","intact":true} or with
           "intact":false the first broken "seq" and the "reason"; exit 1 if any is broken
  export   write the chains as JSON lines {"organizationId","seq","prevHash","hash","body"};
           each hash is the hex SHA-256 of prevHash, a newline and body (UTF-8), the first
           prevHash 64 zeros, so a script with only SHA-256 can re-check them

The chain holds every activity, vote and refusal of an authenticated request (never a body,
a stamp or a secret). --data DIR is the embedded store (default ${DEFAULT_DATA_DIR}) and must not
be held by a running keyhold serve; --postgres URL reads a Postgres store (read-only is enough).
`;

/** Entries read per round trip. */
const PAGE = 500;

const AUDIT_OPTIONS = {
  ...STORE_OPTIONS,
  'organization-id': { type: 'string' },
} as const;

export async function runAuditCommand(args: string[]): Promise<number> {
  const [verb, ...rest] = args;
  if (verb === undefined || verb === '--help' || verb === 'help') {
    process.stdout.write(HELP);
    return verb === undefined ? 2 : 0;
  }
  if (verb !== 'verify' && verb !== 'export') {
    process.stderr.write(`keyhold audit: unknown command "${verb}"\n  (keyhold audit --help)\n`);
    return 2;
  }
  const { values, help } = resolveSettings(rest, AUDIT_OPTIONS, process.env, [
    ['data', 'postgres'],
  ]);
  if (help) {
    process.stdout.write(HELP);
    return 0;
  }
  let store: Store;
  try {
    store = await openStoreForReading(values);
  } catch (error) {
    if (!(error instanceof StoreUnreadableError)) throw error;
    process.stderr.write(`keyhold audit: ${error.message}\n`);
    return 2;
  }
  try {
    const heads = (await store.transaction((tx) => tx.auditLog.heads())).filter(
      (h) =>
        values['organization-id'] === undefined || h.organizationId === values['organization-id'],
    );
    let broken = false;
    for (const head of heads) {
      broken = (await walkChain(store, head, verb)) || broken;
    }
    if (heads.length === 0) process.stderr.write('keyhold audit: no audit chain in this store\n');
    return verb === 'verify' && broken ? 1 : 0;
  } finally {
    await store.close();
  }
}

/** Reads one chain page by page; verifies it, or writes it out. True when it is broken. */
async function walkChain(store: Store, head: AuditHeadRecord, verb: 'verify' | 'export') {
  const { organizationId } = head;
  const checker = auditChainChecker(organizationId);
  let previous = AUDIT_GENESIS_HASH;
  let count = 0;
  for (let from = 1; ; from += PAGE) {
    const page = await store.transaction((tx) => tx.auditLog.list(organizationId, from, PAGE));
    for (const entry of page) {
      if (verb === 'export') {
        process.stdout.write(
          `${JSON.stringify({ organizationId, seq: entry.seq, prevHash: previous, hash: entry.hash, body: entry.body })}\n`,
        );
        previous = entry.hash;
        continue;
      }
      const broken = checker.next(entry);
      if (broken) {
        process.stdout.write(`${JSON.stringify({ organizationId, intact: false, ...broken })}\n`);
        return true;
      }
      count++;
    }
    if (page.length < PAGE) break;
  }
  if (verb === 'export') return false;
  const broken = checker.end(head);
  process.stdout.write(
    `${JSON.stringify(
      broken
        ? { organizationId, intact: false, ...broken }
        : { organizationId, entries: count, intact: true },
    )}\n`,
  );
  return broken !== undefined;
}
