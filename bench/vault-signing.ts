/**
 * `pnpm bench:vaults` (also run by `pnpm bench`): signatures per second, per curve, for each
 * KeyVault, beside the bare library operation the vault stands on, all in the same run.
 *
 * For each curve, in this order (so a row and its bare op are measured close together in time):
 * - the bare op: noble `secp256k1.sign(digest, key, {prehash:false, lowS:true,
 *   format:'recovered'})`, noble `p256.sign(…)` the same way, node:crypto `sign(null, msg,
 *   keyObject)` for Ed25519 with a KeyObject made beforehand; and reference lines that are not
 *   what a vault runs (node:crypto ECDSA P-256, noble Ed25519);
 * - `vault.sign` on the software vault with a wallet-derived key (`createSeed` + `deriveKey`);
 * - `vault.sign` on the PKCS#11 vault (a throw-away SoftHSM2 token) with a wallet-derived key
 *   (wrapped by the token's AES key, unwrapped in the token and signed in process) and with a
 *   token-resident key from `createKey` (CKM_ECDSA / CKM_EDDSA inside the token). Skipped with
 *   the reason printed when SoftHSM2 is not installed.
 * - secp256k1 BIP340 Taproot: noble `schnorr.sign` beside `vault.signTaproot(key, digest32,
 *   merkleRoot)` (empty Merkle root: BIP86) for the vaults that implement that optional
 *   capability (a vault without it, or a token key it refuses, is printed as not measured).
 *
 * Every cell: a warm-up (a quarter of the window, at most 1 s), then a fixed time window of
 * sequential calls, one signature at a time (each awaited): the point is the cost of one
 * signature, not throughput under concurrency. Messages cycle through 256 random 32-byte values
 * (digests for ECDSA and BIP340; the message itself for Ed25519). A sample of each cell's
 * outputs (the first warm-up one, the first 8 timed ones, then every 64th; at most 64) is
 * verified after the window — noble for ECDSA (the signature, low-S, and the recovery id
 * recovering the key) and BIP340 (under the BIP341-tweaked output key), node:crypto for
 * Ed25519 — so a broken signer cannot be measured; the exit code is 1 if any check or call
 * failed.
 *
 * Knobs (environment): BENCH_VAULT_SECONDS (2: the timed window of each cell), BENCH_VAULTS
 * (software,pkcs11). The SoftHSM2 token lives in a fresh temporary directory with its own
 * softhsm2.conf (SOFTHSM2_CONF, as adapters/vault-pkcs11/src/__fixtures__/softhsm.ts does),
 * removed afterwards; nothing global (/etc/softhsm, /var/lib/softhsm) is read or written.
 * @module
 */
import { execFileSync } from 'node:child_process';
import {
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign as nodeSign,
  verify as nodeVerify,
  randomBytes,
} from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { ed25519 } from '@noble/curves/ed25519.js';
import { p256 } from '@noble/curves/nist.js';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToNumberBE, concatBytes, equalBytes } from '@noble/curves/utils.js';
// The vault packages are not dependencies of the workspace root: imported by path (their
// sources, run by tsx). The PKCS#11 one is loaded only when SoftHSM2 is there (pkcs11js is native).
import { generateMasterKey, SoftwareKeyVault } from '../adapters/vault-software/src/index.js';
import type { KeyVault, RawSignature, VaultKey } from '../packages/keys/src/index.js';
import type { Curve } from '../packages/protocol/src/index.js';

const positive = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
};
const SECONDS = positive('BENCH_VAULT_SECONDS', 2);
const WARMUP_SECONDS = Math.min(1, SECONDS / 4);
const VAULT_NAMES = ['software', 'pkcs11'] as const;
type VaultName = (typeof VAULT_NAMES)[number];
const VAULTS = (process.env.BENCH_VAULTS ?? VAULT_NAMES.join(','))
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean) as VaultName[];
for (const name of VAULTS) {
  if (!VAULT_NAMES.includes(name)) {
    throw new Error(`BENCH_VAULTS: unknown vault "${name}" (use ${VAULT_NAMES.join(', ')})`);
  }
}
const SOFTHSM_MODULE = '/usr/lib/softhsm/libsofthsm2.so';
const SAMPLE_EVERY = 64;
const MAX_SAMPLES = 64;
/** BIP86: a key-path-only Taproot output commits to no script tree. */
const NO_MERKLE_ROOT = new Uint8Array(0);

const PATHS: Record<Curve, string> = {
  CURVE_SECP256K1: "m/44'/60'/0'/0/0",
  CURVE_P256: "m/44'/60'/0'/0/0",
  CURVE_ED25519: "m/44'/501'/0'/0'",
};

const nowNs = () => process.hrtime.bigint();
const fmt = (n: number, digits = 0) =>
  Number.isFinite(n)
    ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : '-';
const errorText = (error: unknown) => {
  if (!(error instanceof Error)) return String(error);
  const reason = (error as { context?: { reason?: unknown } }).context?.reason; // KeyholdError
  return typeof reason === 'string' ? `${error.message}: ${reason}` : error.message;
};

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

/** 256 random 32-byte messages, cycled through by every cell. */
const MESSAGES = Array.from({ length: 256 }, () => new Uint8Array(randomBytes(32)));
const messageAt = (i: number) => MESSAGES[i & 255]!;

// ---------------------------------------------------------------------------------------------
// One cell: warm-up, fixed window of sequential calls, then checks on a sample of the outputs

interface Measured {
  ops: number;
  seconds: number;
  opsPerSecond: number;
  p50Us: number;
  p99Us: number;
  /** Outputs verified after the window. */
  checked: number;
}

/**
 * Calls `op(i)` one at a time (awaiting it when it returns a promise) for the warm-up, then for
 * the timed window; `check(i, output)` throws when output i is not a valid signature.
 */
async function measure<T>(
  op: (i: number) => T | Promise<T>,
  check: (i: number, output: T) => void,
): Promise<Measured> {
  const call = async (i: number): Promise<T> => {
    const out = op(i);
    return out instanceof Promise ? await out : out;
  };
  const samples: { i: number; output: T }[] = [];
  // Warm-up (not timed): JIT, noble's precomputed tables, the vaults' caches.
  const warmupEnd = nowNs() + BigInt(Math.round(WARMUP_SECONDS * 1e9));
  let w = 0;
  do {
    const output = await call(w);
    if (w === 0) samples.push({ i: w, output });
    w++;
  } while (nowNs() < warmupEnd);

  const latencies: number[] = [];
  const start = nowNs();
  const end = start + BigInt(Math.round(SECONDS * 1e9));
  let t = start;
  let i = 0;
  while (t < end) {
    const output = await call(i);
    const after = nowNs();
    latencies.push(Number(after - t) / 1e3);
    t = after;
    if ((i < 8 || i % SAMPLE_EVERY === 0) && samples.length < MAX_SAMPLES)
      samples.push({ i, output });
    i++;
  }
  const seconds = Number(t - start) / 1e9;
  for (const sample of samples) check(sample.i, sample.output);
  latencies.sort((a, b) => a - b);
  return {
    ops: i,
    seconds,
    opsPerSecond: i / seconds,
    p50Us: percentile(latencies, 50),
    p99Us: percentile(latencies, 99),
    checked: samples.length,
  };
}

// ---------------------------------------------------------------------------------------------
// Checks

function checkEcdsa(curve: Curve, publicKey: Uint8Array, digest: Uint8Array, sig: RawSignature) {
  const ecdsa = curve === 'CURVE_SECP256K1' ? secp256k1 : p256;
  if (sig.recovery !== 0 && sig.recovery !== 1) throw new Error('no recovery id 0 or 1');
  const compact = concatBytes(sig.r, sig.s);
  if (!ecdsa.verify(compact, digest, publicKey, { prehash: false, lowS: true })) {
    throw new Error('the ECDSA signature does not verify (or is high-S)');
  }
  const recovered = ecdsa.Signature.fromBytes(compact, 'compact')
    .addRecoveryBit(sig.recovery)
    .recoverPublicKey(digest)
    .toBytes(true);
  if (!equalBytes(recovered, publicKey)) throw new Error('the recovery id recovers another key');
}

/** noble's `format: 'recovered'`: recovery id ‖ r ‖ s. */
const fromRecovered = (bytes: Uint8Array): RawSignature => {
  const recovery = bytes[0];
  return {
    r: bytes.subarray(1, 33),
    s: bytes.subarray(33, 65),
    ...(recovery === 0 || recovery === 1 ? { recovery } : {}),
  };
};

function ed25519PublicKeyObject(publicKey: Uint8Array): KeyObject {
  return createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey).toString('base64url') },
    format: 'jwk',
  });
}

function checkEd25519(publicKey: KeyObject, message: Uint8Array, signature: Uint8Array) {
  if (signature.length !== 64 || !nodeVerify(null, message, publicKey, signature)) {
    throw new Error('the Ed25519 signature does not verify');
  }
}

/** The BIP341 output key (x-only) of an internal key (SEC1) and a Merkle root (empty: BIP86). */
function taprootOutputKey(publicKey: Uint8Array, merkleRoot: Uint8Array): Uint8Array {
  const internal = schnorr.utils.lift_x(secp256k1.Point.fromBytes(publicKey).x);
  const x = schnorr.utils.pointToBytes(internal);
  const tweak = bytesToNumberBE(schnorr.utils.taggedHash('TapTweak', x, merkleRoot));
  if (tweak === 0n || tweak >= secp256k1.Point.Fn.ORDER) throw new Error('invalid TapTweak');
  return schnorr.utils.pointToBytes(internal.add(secp256k1.Point.BASE.multiply(tweak)));
}

function checkSchnorr(outputKey: Uint8Array, digest: Uint8Array, signature: Uint8Array) {
  if (signature.length !== 64 || !schnorr.verify(signature, digest, outputKey)) {
    throw new Error('the BIP340 signature does not verify under the tweaked output key');
  }
}

// ---------------------------------------------------------------------------------------------
// The vaults under test

type KeyKind = 'derived' | 'token';

interface VaultUnderTest {
  readonly name: VaultName;
  readonly vault: KeyVault;
  readonly keys: ReadonlyMap<`${Curve}/${KeyKind}`, VaultKey>;
  /** What each key kind is, for the table. */
  readonly describe: Readonly<Record<KeyKind, string>>;
  close(): Promise<void>;
}

/** The optional Taproot capability (`TaprootSigningVault` in @keyhold/keys). */
interface TaprootVault {
  signTaproot(key: string, digest: Uint8Array, merkleRoot: Uint8Array): Promise<Uint8Array>;
}
const taprootOf = (vault: KeyVault): TaprootVault | undefined =>
  typeof (vault as Partial<TaprootVault>).signTaproot === 'function'
    ? (vault as unknown as TaprootVault)
    : undefined;

const CURVES: readonly Curve[] = ['CURVE_SECP256K1', 'CURVE_P256', 'CURVE_ED25519'];

async function derivedKeys(vault: KeyVault, keys: Map<`${Curve}/${KeyKind}`, VaultKey>) {
  const seed = await vault.createSeed(24);
  for (const curve of CURVES) {
    keys.set(`${curve}/derived`, await vault.deriveKey(seed, curve, PATHS[curve]));
  }
}

async function openSoftware(): Promise<VaultUnderTest> {
  const vault = new SoftwareKeyVault({ masterKey: generateMasterKey() });
  const keys = new Map<`${Curve}/${KeyKind}`, VaultKey>();
  await derivedKeys(vault, keys);
  return {
    name: 'software',
    vault,
    keys,
    describe: { derived: 'software · derived key', token: 'software · (no token keys)' },
    close: async () => {},
  };
}

function softHsmMissing(): string | undefined {
  if (!existsSync(SOFTHSM_MODULE)) return `SoftHSM2 is not installed (${SOFTHSM_MODULE} missing)`;
  try {
    execFileSync('softhsm2-util', ['--version'], { stdio: 'pipe' });
  } catch {
    return 'SoftHSM2 is not installed (softhsm2-util missing)';
  }
  return undefined;
}

/** The temporary SoftHSM2 directory, removed by `cleanupToken` (and on SIGINT/SIGTERM). */
let tokenDir: string | undefined;
const cleanupToken = () => {
  if (tokenDir) rmSync(tokenDir, { recursive: true, force: true });
  tokenDir = undefined;
};
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    cleanupToken();
    process.exit(130);
  });
}

/** Opens a PKCS#11 vault on a fresh SoftHSM2 token, or returns why it cannot here. */
async function openPkcs11(): Promise<VaultUnderTest | string> {
  const missing = softHsmMissing();
  if (missing) return missing;
  let pkcs11: typeof import('../adapters/vault-pkcs11/src/index.js');
  try {
    pkcs11 = await import('../adapters/vault-pkcs11/src/index.js');
  } catch (error) {
    return `the PKCS#11 vault does not load (pkcs11js): ${errorText(error)}`;
  }
  // A throw-away token directory with its own softhsm2.conf (SOFTHSM2_CONF), as the tests make.
  const { createSoftHsm } = await import('../adapters/vault-pkcs11/src/__fixtures__/softhsm.js');
  const label = 'keyhold-bench';
  const hsm = createSoftHsm([label]);
  tokenDir = hsm.dir;
  const { pin } = hsm.tokens[label]!;
  const vault = await pkcs11.openPkcs11KeyVault({
    modulePath: SOFTHSM_MODULE,
    tokenLabel: label,
    pin,
  });
  try {
    const keys = new Map<`${Curve}/${KeyKind}`, VaultKey>();
    await derivedKeys(vault, keys);
    for (const curve of CURVES) keys.set(`${curve}/token`, await vault.createKey(curve));
    return {
      name: 'pkcs11',
      vault,
      keys,
      describe: { derived: 'pkcs11 · derived key (wrapped)', token: 'pkcs11 · token key' },
      close: async () => {
        await vault.close();
        cleanupToken();
      },
    };
  } catch (error) {
    await vault.close();
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// The table

type RowKind = 'bare' | 'reference' | 'vault';

interface Row {
  readonly group: string;
  readonly signer: string;
  readonly kind: RowKind;
  result?: Measured;
  /** Not measured here, and why (not a failure). */
  skipped?: string;
  /** A call or a check failed. */
  failed?: string;
}

const rows: Row[] = [];
const bareOf = new Map<string, Row>();

async function cell<T>(
  group: string,
  signer: string,
  kind: RowKind,
  op: (i: number) => T | Promise<T>,
  check: (i: number, output: T) => void,
): Promise<void> {
  const row: Row = { group, signer, kind };
  rows.push(row);
  if (kind === 'bare') bareOf.set(group, row);
  try {
    row.result = await measure(op, check);
  } catch (error) {
    row.failed = errorText(error);
  }
  printProgress(row);
}

function skip(group: string, signer: string, reason: string): void {
  const row: Row = { group, signer, kind: 'vault', skipped: reason };
  rows.push(row);
  printProgress(row);
}

/** The p50 latency above the bare op's p50 (µs): what the vault adds to one signature. */
function p50AboveBare(row: Row): number {
  const bare = bareOf.get(row.group)?.result;
  return row.result && bare ? row.result.p50Us - bare.p50Us : Number.NaN;
}

function ratioOf(row: Row): number {
  const bare = bareOf.get(row.group)?.result;
  return row.result && bare ? row.result.opsPerSecond / bare.opsPerSecond : Number.NaN;
}

function printProgress(row: Row): void {
  const head = `  ${row.group} — ${row.signer}: `;
  if (row.failed) process.stdout.write(`${head}FAILED: ${row.failed}\n`);
  else if (row.skipped) process.stdout.write(`${head}not measured: ${row.skipped}\n`);
  else if (row.result) {
    const r = row.result;
    process.stdout.write(
      `${head}${fmt(r.opsPerSecond)} ops/s (${fmt(r.ops)} in ${fmt(r.seconds, 2)} s), p50 ${fmt(r.p50Us, 1)} µs, ` +
        `p99 ${fmt(r.p99Us, 1)} µs, ${r.checked} verified\n`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Main

const cpu = cpus();
const machine = `${cpu.length} CPU(s) ${cpu[0]?.model ?? '?'}, ${fmt(totalmem() / 2 ** 30, 1)} GiB, node ${process.version}, ${process.platform}/${process.arch}`;
const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
process.stdout.write(
  `Keyhold vault signing bench — ${machine}\nload average before: ${load()}\n` +
    `each cell: ${fmt(WARMUP_SECONDS, 2)} s warm-up, then ${fmt(SECONDS, 2)} s of sequential signatures (one at a time)\n\n`,
);

const vaults: VaultUnderTest[] = [];
const skippedVaults: { vault: VaultName; reason: string }[] = [];
let setupFailed = false;
try {
  for (const name of VAULTS) {
    try {
      const opened = name === 'software' ? await openSoftware() : await openPkcs11();
      if (typeof opened === 'string') {
        process.stdout.write(`${name} vault SKIPPED: ${opened}\n`);
        skippedVaults.push({ vault: name, reason: opened });
        cleanupToken();
      } else {
        vaults.push(opened);
      }
    } catch (error) {
      process.stdout.write(`${name} vault setup FAILED: ${errorText(error)}\n`);
      setupFailed = true;
      cleanupToken();
    }
  }
  await runCells();
} finally {
  for (const v of vaults) await v.close().catch(() => {});
  cleanupToken();
}

async function runCells(): Promise<void> {
  const kinds = (v: VaultUnderTest): KeyKind[] =>
    v.name === 'pkcs11' ? ['derived', 'token'] : ['derived'];

  // secp256k1 and P-256 ECDSA: noble, then each vault.
  for (const curve of ['CURVE_SECP256K1', 'CURVE_P256'] as const) {
    const group = curve === 'CURVE_SECP256K1' ? 'secp256k1 ECDSA' : 'P-256 ECDSA';
    const ecdsa = curve === 'CURVE_SECP256K1' ? secp256k1 : p256;
    process.stdout.write(`${group}\n`);
    const secretKey = ecdsa.utils.randomSecretKey();
    const publicKey = ecdsa.getPublicKey(secretKey, true);
    await cell(
      group,
      `noble ${curve === 'CURVE_SECP256K1' ? 'secp256k1' : 'p256'}.sign (bare)`,
      'bare',
      (i) =>
        ecdsa.sign(messageAt(i), secretKey, { prehash: false, lowS: true, format: 'recovered' }),
      (i, out) => checkEcdsa(curve, publicKey, messageAt(i), fromRecovered(out)),
    );
    if (curve === 'CURVE_P256') {
      // A reference, not what a vault runs: OpenSSL, random nonces, SHA-256 over the 32 bytes.
      const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      await cell(
        group,
        "node:crypto sign('sha256', …) (reference)",
        'reference',
        (i) => nodeSign('sha256', messageAt(i), pair.privateKey),
        (i, out) => {
          if (!nodeVerify('sha256', messageAt(i), pair.publicKey, out)) {
            throw new Error('the node:crypto P-256 signature does not verify');
          }
        },
      );
    }
    for (const v of vaults) {
      for (const kind of kinds(v)) {
        const key = v.keys.get(`${curve}/${kind}`)!;
        await cell(
          group,
          kind === 'token' ? `${v.describe.token} (CKM_ECDSA)` : v.describe[kind],
          'vault',
          (i) => v.vault.sign(key.key, curve, messageAt(i)),
          (i, sig) => checkEcdsa(curve, key.publicKey, messageAt(i), sig),
        );
      }
    }
  }

  // Ed25519: node:crypto with a ready KeyObject (what the vaults call), noble for reference.
  {
    const group = 'Ed25519';
    process.stdout.write(`${group}\n`);
    const pair = generateKeyPairSync('ed25519');
    await cell(
      group,
      'node:crypto sign(null, …), KeyObject (bare)',
      'bare',
      (i) => nodeSign(null, messageAt(i), pair.privateKey),
      (i, out) => checkEd25519(pair.publicKey, messageAt(i), out),
    );
    const secretKey = ed25519.utils.randomSecretKey();
    const noblePublic = ed25519PublicKeyObject(ed25519.getPublicKey(secretKey));
    await cell(
      group,
      'noble ed25519.sign (reference)',
      'reference',
      (i) => ed25519.sign(messageAt(i), secretKey),
      (i, out) => checkEd25519(noblePublic, messageAt(i), out),
    );
    for (const v of vaults) {
      for (const kind of kinds(v)) {
        const key = v.keys.get(`CURVE_ED25519/${kind}`)!;
        const publicKey = ed25519PublicKeyObject(key.publicKey);
        await cell(
          group,
          kind === 'token' ? `${v.describe.token} (CKM_EDDSA)` : v.describe[kind],
          'vault',
          (i) => v.vault.sign(key.key, 'CURVE_ED25519', messageAt(i)),
          (i, sig) => checkEd25519(publicKey, messageAt(i), concatBytes(sig.r, sig.s)),
        );
      }
    }
  }

  // secp256k1 BIP340 Taproot (key path, BIP86: no script tree): noble schnorr.sign, then
  // `signTaproot` on each vault that has it. The capability is optional (`canSignTaproot`), so
  // a vault without it is listed as not measured; a token key the vault refuses is "n/a".
  {
    const group = 'secp256k1 BIP340 Taproot';
    process.stdout.write(`${group}\n`);
    const secretKey = schnorr.utils.randomSecretKey();
    const xOnly = schnorr.getPublicKey(secretKey);
    await cell(
      group,
      'noble schnorr.sign (bare)',
      'bare',
      (i) => schnorr.sign(messageAt(i), secretKey),
      (i, out) => checkSchnorr(xOnly, messageAt(i), out),
    );
    for (const v of vaults) {
      const taproot = taprootOf(v.vault);
      for (const kind of kinds(v)) {
        const signer = `${v.describe[kind]}, signTaproot`;
        if (!taproot) {
          skip(group, signer, `the ${v.name} vault has no signTaproot (yet)`);
          continue;
        }
        const key = v.keys.get(`CURVE_SECP256K1/${kind}`)!;
        const outputKey = taprootOutputKey(key.publicKey, NO_MERKLE_ROOT);
        if (kind === 'token') {
          // A key that never leaves the token cannot be tweaked by most HSMs: a refusal is n/a.
          try {
            await taproot.signTaproot(key.key, messageAt(0), NO_MERKLE_ROOT);
          } catch (error) {
            skip(group, signer, `n/a: ${errorText(error)}`);
            continue;
          }
        }
        await cell(
          group,
          signer,
          'vault',
          (i) => taproot.signTaproot(key.key, messageAt(i), NO_MERKLE_ROOT),
          (i, out) => checkSchnorr(outputKey, messageAt(i), out),
        );
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Summary

const groupWidth = Math.max(5, ...rows.map((r) => r.group.length));
const signerWidth = Math.max(6, ...rows.map((r) => r.signer.length));
const pad = (text: string, width: number) => text.padStart(width);
const signed = (us: number) =>
  Number.isFinite(us) ? `${us >= 0 ? '+' : '−'}${fmt(Math.abs(us))}` : '-';
process.stdout.write(
  `\nsummary (${fmt(SECONDS, 2)} s per cell; × bare = ops/s ÷ the same curve's bare ops/s;` +
    ` p50 − bare = µs added to the bare op's median)\n` +
    `  ${'curve'.padEnd(groupWidth)}  ${'signer'.padEnd(signerWidth)}${pad('ops/s', 9)}${pad('p50 µs', 10)}${pad('× bare', 8)}${pad('p50 − bare', 12)}${pad('verified', 10)}\n`,
);
for (const row of rows) {
  const r = row.result;
  const status = row.failed ? `  FAILED: ${row.failed}` : row.skipped ? `  (${row.skipped})` : '';
  process.stdout.write(
    `  ${row.group.padEnd(groupWidth)}  ${row.signer.padEnd(signerWidth)}` +
      (r
        ? `${pad(fmt(r.opsPerSecond), 9)}${pad(fmt(r.p50Us, 1), 10)}${pad(fmt(ratioOf(row), 2), 8)}${pad(row.kind === 'bare' ? '' : signed(p50AboveBare(row)), 12)}${pad(String(r.checked), 10)}`
        : `${pad('-', 9)}${pad('-', 10)}${pad('-', 8)}${pad('-', 12)}${pad('-', 10)}`) +
      `${status}\n`,
  );
}
for (const s of skippedVaults) process.stdout.write(`  ${s.vault} vault skipped: ${s.reason}\n`);
process.stdout.write(`load average after: ${load()}\n`);
process.stdout.write(
  `${JSON.stringify({
    machine: { cpus: cpu.length, model: cpu[0]?.model, node: process.version, loadavg: loadavg() },
    secondsPerCell: SECONDS,
    rows: rows.map((row) => ({
      curve: row.group,
      signer: row.signer,
      kind: row.kind,
      ...(row.result
        ? {
            opsPerSecond: Math.round(row.result.opsPerSecond),
            ops: row.result.ops,
            p50Us: Number(row.result.p50Us.toFixed(1)),
            p99Us: Number(row.result.p99Us.toFixed(1)),
            vsBare: Number(ratioOf(row).toFixed(3)),
            p50AboveBareUs: Number(p50AboveBare(row).toFixed(1)),
            verified: row.result.checked,
          }
        : {}),
      ...(row.skipped ? { skipped: row.skipped } : {}),
      ...(row.failed ? { failed: row.failed } : {}),
    })),
    skippedVaults,
  })}\n`,
);
process.exitCode = setupFailed || rows.some((r) => r.failed) ? 1 : 0;
