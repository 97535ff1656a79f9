/**
 * Test support: a throw-away SoftHSM2 installation per test file. It writes its own
 * softhsm2.conf with a token directory in a temp dir, points SOFTHSM2_CONF at it (SoftHSM reads
 * it at C_Initialize), and initializes tokens there with `softhsm2-util`, so nothing global
 * (/etc/softhsm, /var/lib/softhsm) is read or written. `cleanup()` removes the directory.
 *
 * When SoftHSM2 is missing the tests are skipped with a loud warning, unless CI is set, in
 * which case `softHsmAvailable()` throws and the test file fails.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pkcs11js from 'pkcs11js';

export const SOFTHSM_MODULE = '/usr/lib/softhsm/libsofthsm2.so';

function hasSoftHsmUtil(): boolean {
  try {
    execFileSync('softhsm2-util', ['--version'], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
}

/** True when SoftHSM2 is installed; otherwise warns loudly, or throws when CI is set. */
export function softHsmAvailable(modulePath = SOFTHSM_MODULE): boolean {
  if (existsSync(modulePath) && hasSoftHsmUtil()) return true;
  const message =
    `SoftHSM2 is not installed (${modulePath} or softhsm2-util missing): ` +
    'the PKCS#11 vault tests are SKIPPED. Install it with `apt-get install softhsm2`.';
  const ci = process.env.CI;
  if (ci && ci !== 'false' && ci !== '0') throw new Error(`${message} CI is set: failing.`);
  const bar = '!'.repeat(100);
  console.warn(`\n${bar}\n${message}\n${bar}\n`);
  return false;
}

/** A token initialized by `createSoftHsm`. */
export interface TestToken {
  readonly label: string;
  readonly pin: string;
  readonly soPin: string;
}

/** A temporary SoftHSM2 installation. */
export interface SoftHsm {
  readonly dir: string;
  readonly modulePath: string;
  readonly tokens: Readonly<Record<string, TestToken>>;
  /** Removes the token directory (call after every vault is closed). */
  cleanup(): void;
}

/**
 * Creates a token directory with one initialized token per label, and sets SOFTHSM2_CONF.
 * Call it before the first vault opens: SoftHSM lists tokens at C_Initialize.
 * @example
 * const hsm = createSoftHsm(['keyhold']);
 * const vault = await openPkcs11KeyVault({ modulePath: hsm.modulePath, tokenLabel: 'keyhold', pin: hsm.tokens.keyhold.pin });
 */
export function createSoftHsm(labels: readonly string[]): SoftHsm {
  const dir = mkdtempSync(join(tmpdir(), 'keyhold-softhsm-'));
  const tokenDir = join(dir, 'tokens');
  mkdirSync(tokenDir);
  const conf = join(dir, 'softhsm2.conf');
  writeFileSync(
    conf,
    [
      `directories.tokendir = ${tokenDir}`,
      'objectstore.backend = file',
      'log.level = ERROR',
      'slots.removable = false',
      'slots.mechanisms = ALL',
      'library.reset_on_fork = false',
      '',
    ].join('\n'),
  );
  const env = { ...process.env, SOFTHSM2_CONF: conf };
  const tokens: Record<string, TestToken> = {};
  try {
    for (const label of labels) {
      const token = {
        label,
        pin: randomBytes(6).toString('hex'),
        soPin: randomBytes(6).toString('hex'),
      };
      execFileSync(
        'softhsm2-util',
        ['--init-token', '--free', '--label', label, '--so-pin', token.soPin, '--pin', token.pin],
        { env, stdio: 'pipe' },
      );
      tokens[label] = token;
    }
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  process.env.SOFTHSM2_CONF = conf;
  return {
    dir,
    modulePath: SOFTHSM_MODULE,
    tokens,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A raw pkcs11js session on a token, for tests that look at token objects directly. */
export interface RawSession {
  readonly pkcs11: InstanceType<typeof pkcs11js.PKCS11>;
  readonly session: Buffer;
  /** The boolean attributes of the private key with CKA_ID `id`. */
  privateKeyFlags(id: Buffer): Record<string, boolean>;
  /** The PKCS#11 error name of reading the private key's CKA_VALUE, or 'readable'. */
  readPrivateValue(id: Buffer): string;
  close(): void;
}

/**
 * Opens an independent session on `tokenLabel` through the same module (the module must be
 * initialized and the token logged in already, e.g. by an open vault). Never finalizes.
 */
export function rawSession(modulePath: string, tokenLabel: string): RawSession {
  const pkcs11 = new pkcs11js.PKCS11();
  pkcs11.load(modulePath);
  try {
    pkcs11.C_Initialize();
  } catch {
    // already initialized by the vault: the same process-wide module state
  }
  const slot = pkcs11
    .C_GetSlotList(true)
    .find((s) => pkcs11.C_GetTokenInfo(s).label.trim() === tokenLabel);
  if (!slot) throw new Error(`no token ${tokenLabel}`);
  const session = pkcs11.C_OpenSession(slot, pkcs11js.CKF_SERIAL_SESSION | pkcs11js.CKF_RW_SESSION);
  const privateKey = (id: Buffer) => {
    pkcs11.C_FindObjectsInit(session, [
      { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_PRIVATE_KEY },
      { type: pkcs11js.CKA_ID, value: id },
    ]);
    const [handle] = pkcs11.C_FindObjects(session, 2);
    pkcs11.C_FindObjectsFinal(session);
    if (!handle) throw new Error('no such private key');
    return handle;
  };
  return {
    pkcs11,
    session,
    privateKeyFlags(id) {
      const names = [
        'CKA_TOKEN',
        'CKA_PRIVATE',
        'CKA_SENSITIVE',
        'CKA_EXTRACTABLE',
        'CKA_ALWAYS_SENSITIVE',
        'CKA_NEVER_EXTRACTABLE',
        'CKA_SIGN',
      ] as const;
      const values = pkcs11.C_GetAttributeValue(
        session,
        privateKey(id),
        names.map((name) => ({ type: pkcs11js[name] })),
      );
      return Object.fromEntries(
        names.map((name, i) => [name, (values[i]!.value as Buffer)[0] === 1]),
      );
    },
    readPrivateValue(id) {
      try {
        pkcs11.C_GetAttributeValue(session, privateKey(id), [{ type: pkcs11js.CKA_VALUE }]);
        return 'readable';
      } catch (error) {
        return (error as Error).message;
      }
    },
    close() {
      pkcs11.C_CloseSession(session);
    },
  };
}
