/**
 * The PKCS#11 KeyVault: a hardware (or SoftHSM) token holds the keys that matter.
 *
 * - **Standalone keys** (`createKey`) are generated inside the token as persistent objects
 *   (CKA_TOKEN true) with CKA_SENSITIVE true and CKA_EXTRACTABLE false, and sign there
 *   (CKM_ECDSA on the 32-byte digest, CKM_EDDSA on the message). What the Store gets is a
 *   reference, `kp11.key.<curve>.<CKA_ID hex>`; the private key never exists outside the token,
 *   so `revealKey` refuses it by design.
 * - **Wallet seeds, derived and imported keys** are encrypted inside the token with AES-256-GCM
 *   under a persistent, non-extractable wrapping key (label `keyhold-wrap` by default, created on
 *   first open), the secret's purpose bound as AAD. BIP32/SLIP-10 derivation cannot run inside
 *   a PKCS#11 token, so deriving and signing with these keys decrypts them (in the token) into
 *   process memory for the length of one call, and zeroes them afterwards.
 *
 * See README.md for the security model and the choices made here.
 * @module
 */
import { endianness } from 'node:os';
import {
  assertCurve,
  assertSignableMessage,
  assertTaprootRequest,
  type CryptoWorkPool,
  compressPublicKey,
  type DerivationRequest,
  deriveFromSealedSeedIn,
  inlineCryptoWorkPool,
  isSeedPlaintextLength,
  type KeyVault,
  keyPlaintext,
  mnemonicEntropyLength,
  mnemonicOfSeedPlaintext,
  mnemonicToEntropy,
  publicKeyFromPrivateKey,
  type RawSignature,
  type SealedSecret,
  type SessionNotarizer,
  seedPlaintext,
  signKeyPlaintextIn,
  signTaprootKeyPlaintextIn,
  type VaultKey,
} from '@keyhold/keys';
import { type Curve, KeyholdError, Messages } from '@keyhold/protocol';
import { p256 } from '@noble/curves/nist.js';
import { bytesToHex, concatBytes } from '@noble/hashes/utils.js';
import pkcs11js from 'pkcs11js';
import { toRecoverableLowS } from './ecdsa-signature.js';
import {
  CKK_EC_EDWARDS,
  CKM_EC_EDWARDS_KEY_PAIR_GEN,
  CKM_EDDSA,
  ecParamsOf,
} from './pkcs11-constants.js';
import { type Handle, type Pkcs11Module, Pkcs11Token, pkcs11ErrorName } from './pkcs11-token.js';
import {
  formatKeyReference,
  formatSeed,
  formatWrappedKey,
  IV_LENGTH,
  KEY_ID_LENGTH,
  openFailed,
  parseSealed,
  TAG_LENGTH,
} from './sealed-reference.js';

/** The module SoftHSM2's Debian/Ubuntu package installs. */
export const DEFAULT_PKCS11_MODULE = '/usr/lib/softhsm/libsofthsm2.so';
/** The CKA_LABEL of the AES wrapping key when none is configured. */
export const DEFAULT_WRAPPING_KEY_LABEL = 'keyhold-wrap';
/** The CKA_LABEL of the P-256 key pair that signs session JWTs (`notarizer()`). */
export const NOTARIZER_KEY_LABEL = 'keyhold-notarizer';

/** The environment variables `openPkcs11KeyVault` reads for options it is not given. */
export const PKCS11_ENV = {
  modulePath: 'KEYHOLD_PKCS11_MODULE',
  tokenLabel: 'KEYHOLD_PKCS11_TOKEN_LABEL',
  pin: 'KEYHOLD_PKCS11_PIN',
  wrappingKeyLabel: 'KEYHOLD_PKCS11_WRAPPING_KEY_LABEL',
} as const;

/** The message of `revealKey` for a key generated inside the HSM. */
export const HSM_KEY_NOT_EXPORTABLE_MESSAGE = Messages.PRIVATE_KEY_NOT_EXPORTABLE.message;

/** Options of the PKCS#11 vault; each falls back to its environment variable (`PKCS11_ENV`). */
export interface Pkcs11KeyVaultOptions {
  /** Path of the PKCS#11 module (.so). Env KEYHOLD_PKCS11_MODULE; default SoftHSM2's. */
  readonly modulePath?: string;
  /** CKA_LABEL of the token (trailing blanks ignored). Env KEYHOLD_PKCS11_TOKEN_LABEL. */
  readonly tokenLabel?: string;
  /** User PIN of the token. Env KEYHOLD_PKCS11_PIN. */
  readonly pin?: string;
  /** CKA_LABEL of the AES-256 wrapping key. Env KEYHOLD_PKCS11_WRAPPING_KEY_LABEL; default `keyhold-wrap`. */
  readonly wrappingKeyLabel?: string;
  /**
   * Where derivation and wrapped-key signing compute (jobs of `@keyhold/keys`). Default: inline.
   * A worker pool gets the seed or key bytes the token decrypted for one call; the token and its
   * session stay on this thread. The vault does not close the pool.
   */
  readonly workPool?: CryptoWorkPool;
}

/** The options after defaults and environment are applied. */
export interface ResolvedPkcs11KeyVaultOptions {
  readonly modulePath: string;
  readonly tokenLabel: string;
  readonly pin: string;
  readonly wrappingKeyLabel: string;
}

/**
 * Applies the environment and the defaults to `options`; refuses a missing token label or PIN.
 * An empty string counts as unset.
 * @example
 * resolvePkcs11Options({}, { KEYHOLD_PKCS11_TOKEN_LABEL: 'keyhold', KEYHOLD_PKCS11_PIN: '1234' });
 * // { modulePath: '/usr/lib/softhsm/libsofthsm2.so', tokenLabel: 'keyhold', pin: '1234', wrappingKeyLabel: 'keyhold-wrap' }
 */
export function resolvePkcs11Options(
  options: Pkcs11KeyVaultOptions = {},
  env: Readonly<Record<string, string | undefined>> = process.env,
): ResolvedPkcs11KeyVaultOptions {
  const pick = (given: string | undefined, name: string) =>
    given !== undefined && given !== '' ? given : env[name] || undefined;
  const tokenLabel = pick(options.tokenLabel, PKCS11_ENV.tokenLabel);
  if (tokenLabel === undefined) {
    throw new Error(
      `PKCS#11 token label required: pass tokenLabel or set ${PKCS11_ENV.tokenLabel}`,
    );
  }
  const pin = pick(options.pin, PKCS11_ENV.pin);
  if (pin === undefined) {
    throw new Error(`PKCS#11 user PIN required: pass pin or set ${PKCS11_ENV.pin}`);
  }
  return {
    modulePath: pick(options.modulePath, PKCS11_ENV.modulePath) ?? DEFAULT_PKCS11_MODULE,
    tokenLabel,
    pin,
    wrappingKeyLabel:
      pick(options.wrappingKeyLabel, PKCS11_ENV.wrappingKeyLabel) ?? DEFAULT_WRAPPING_KEY_LABEL,
  };
}

/**
 * Opens the token, logs in, and finds (or on first use creates) the wrapping key.
 * @example
 * const vault = await openPkcs11KeyVault({ tokenLabel: 'keyhold', pin: process.env.PIN });
 * const { key, publicKey } = await vault.createKey('CURVE_SECP256K1'); // 'kp11.key.secp256k1.…'
 * const signature = await vault.sign(key, 'CURVE_SECP256K1', digest32);
 * await vault.close();
 */
export async function openPkcs11KeyVault(
  options: Pkcs11KeyVaultOptions = {},
): Promise<Pkcs11KeyVault> {
  const resolved = resolvePkcs11Options(options);
  const token = Pkcs11Token.open(resolved);
  try {
    const wrappingKey = token.run((p11, session) =>
      findOrCreateWrappingKey(p11, session, resolved.wrappingKeyLabel, token.label),
    );
    return new Pkcs11KeyVault(OPEN, token, wrappingKey, options.workPool);
  } catch (error) {
    token.close();
    throw error;
  }
}

const OPEN = Symbol('openPkcs11KeyVault');
const SEED_PURPOSE = 'keyhold/pkcs11/seed/v1';
const keyPurpose = (curve: Curve) => `keyhold/pkcs11/key/v1/${curve}`;
const MAX_CACHED_KEYS = 4096;
/** An empty message with a non-NULL data pointer: SoftHSM answers NULL with CKR_ARGUMENTS_BAD. */
const EMPTY = Buffer.alloc(1).subarray(0, 0);

/** An HSM-born key, as found in the token. */
interface TokenKey {
  readonly curve: Curve;
  readonly handle: Handle;
  readonly publicKey: Uint8Array;
}

/**
 * A KeyVault backed by a PKCS#11 token. Create it with `openPkcs11KeyVault`; `close()` it on
 * shutdown.
 */
export class Pkcs11KeyVault implements KeyVault {
  readonly kind = 'pkcs11';
  readonly #token: Pkcs11Token;
  readonly #wrappingKey: Handle;
  readonly #keys = new Map<string, TokenKey>();
  readonly #pool: CryptoWorkPool;

  /** @internal Use `openPkcs11KeyVault`. */
  constructor(
    guard: typeof OPEN,
    token: Pkcs11Token,
    wrappingKey: Handle,
    workPool: CryptoWorkPool = inlineCryptoWorkPool(),
  ) {
    if (guard !== OPEN) throw new Error('use openPkcs11KeyVault() to open a PKCS#11 vault');
    this.#token = token;
    this.#wrappingKey = wrappingKey;
    this.#pool = workPool;
  }

  /** The CKA_LABEL of the token this vault is logged in to. */
  get tokenLabel(): string {
    return this.#token.label;
  }

  /** The serial number of the token this vault is logged in to. */
  get tokenSerialNumber(): string {
    return this.#token.serialNumber;
  }

  async createSeed(mnemonicLength: number): Promise<SealedSecret> {
    const length = mnemonicEntropyLength(mnemonicLength);
    const entropy = this.#token.run((p11, session) =>
      p11.C_GenerateRandom(session, Buffer.alloc(length)),
    );
    try {
      return await this.#sealSeed(entropy);
    } finally {
      entropy.fill(0);
    }
  }

  async importSeed(mnemonic: string): Promise<SealedSecret> {
    const entropy = mnemonicToEntropy(mnemonic);
    try {
      return await this.#sealSeed(entropy);
    } finally {
      entropy.fill(0);
    }
  }

  async deriveKey(seed: SealedSecret, curve: Curve, path: string): Promise<VaultKey> {
    const [key] = await this.deriveKeys(seed, [{ curve, path }]);
    return key as VaultKey;
  }

  async deriveKeys(
    seed: SealedSecret,
    requests: readonly DerivationRequest[],
  ): Promise<VaultKey[]> {
    // Paths are checked before the seed is opened; the job gets a copy of its BIP39 seed.
    return deriveFromSealedSeedIn(
      this.#pool,
      () => this.#openSeed(seed),
      requests,
      (curve, priv, pub) => this.#wrapKey(curve, priv, pub),
    );
  }

  async createKey(curve: Curve): Promise<VaultKey> {
    assertCurve(curve);
    const key = this.#token.run((p11, session) => generateTokenKey(p11, session, curve));
    this.#remember(key.id, key);
    return { key: formatKeyReference(curve, key.id), publicKey: key.publicKey.slice() };
  }

  async importKey(curve: Curve, privateKey: Uint8Array): Promise<VaultKey> {
    // publicKeyFromPrivateKey refuses an unknown curve and a bad key (INVALID_PRIVATE_KEY).
    const publicKey = publicKeyFromPrivateKey(curve, privateKey);
    return this.#wrapKey(curve, privateKey, publicKey);
  }

  async sign(key: SealedSecret, curve: Curve, message: Uint8Array): Promise<RawSignature> {
    assertSignableMessage(curve, message); // before the secret is opened
    const sealed = parseSealed(key);
    if (sealed.kind === 'seed' || sealed.curve !== curve) openFailed();
    if (sealed.kind === 'key') return this.#signInToken(sealed.id, curve, message);
    const plaintext = this.#openWrappedKey(curve, sealed.body);
    try {
      return signKeyPlaintextIn(this.#pool, curve, plaintext, message); // copies the key
    } finally {
      plaintext.fill(0);
    }
  }

  /**
   * BIP340 for Taproot key-path inputs (see the KeyVault port), for wrapped secp256k1 keys:
   * wallet accounts and imported keys. A key born in the token is refused with
   * TRANSACTION_INPUT_NOT_SIGNABLE: PKCS#11 has no BIP340 mechanism, and the tweak needs the
   * secret, which never leaves the token.
   */
  async signTaproot(
    key: SealedSecret,
    digest: Uint8Array,
    merkleRoot: Uint8Array,
  ): Promise<Uint8Array> {
    assertTaprootRequest('CURVE_SECP256K1', digest, merkleRoot);
    const sealed = parseSealed(key);
    if (sealed.kind === 'seed' || sealed.curve !== 'CURVE_SECP256K1') openFailed();
    if (sealed.kind === 'key') {
      this.#findTokenKey(sealed.id, sealed.curve); // a reference to nothing does not open
      throw new KeyholdError('TRANSACTION_INPUT_NOT_SIGNABLE', {
        reason: 'a key generated in the HSM cannot make BIP340 (Taproot) signatures',
      });
    }
    const plaintext = this.#openWrappedKey(sealed.curve, sealed.body);
    try {
      return signTaprootKeyPlaintextIn(this.#pool, plaintext, digest, merkleRoot); // copies the key
    } finally {
      plaintext.fill(0);
    }
  }

  /**
   * The session notarizer held in this token: a persistent P-256 key pair labelled
   * `keyhold-notarizer` (sensitive, not extractable), found or, on first use, generated here,
   * so every instance on the token issues sessions under the same `notarizerPublicKey` and the
   * private key never leaves the token. Should two instances generate one at once, the lowest
   * CKA_ID wins everywhere.
   * @example
   * const server = await startServer({ vault, notarizer: await vault.notarizer() });
   */
  async notarizer(): Promise<SessionNotarizer> {
    const key = this.#token.run((p11, session) => {
      const found = findLabelledKey(p11, session, NOTARIZER_KEY_LABEL);
      if (found) return found;
      return generateTokenKey(p11, session, 'CURVE_P256', NOTARIZER_KEY_LABEL);
    });
    this.#remember(key.id, key);
    const reference = formatKeyReference('CURVE_P256', key.id);
    return {
      publicKey: bytesToHex(p256.Point.fromBytes(key.publicKey).toBytes(false)),
      signDigest: async (digest) => {
        const { r, s } = await this.sign(reference, 'CURVE_P256', digest);
        return concatBytes(r, s);
      },
    };
  }

  async revealMnemonic(seed: SealedSecret): Promise<string> {
    const plaintext = this.#openSeed(seed);
    try {
      return mnemonicOfSeedPlaintext(plaintext);
    } finally {
      plaintext.fill(0);
    }
  }

  async revealKey(key: SealedSecret): Promise<Uint8Array> {
    const sealed = parseSealed(key);
    if (sealed.kind === 'seed') openFailed();
    if (sealed.kind === 'key') {
      this.#findTokenKey(sealed.id, sealed.curve); // a reference to nothing does not open
      throw new KeyholdError('PRIVATE_KEY_NOT_EXPORTABLE');
    }
    const plaintext = this.#openWrappedKey(sealed.curve, sealed.body);
    try {
      return Uint8Array.from(plaintext.subarray(0, 32)); // a copy: Buffer#slice would be a view
    } finally {
      plaintext.fill(0);
    }
  }

  /**
   * Destroys the token objects (private and public key) of an HSM-born key, for deletion. True
   * when something was destroyed; false for a wrapped key or seed, which live only in the Store.
   * The server calls it after DELETE_PRIVATE_KEYS commits (the KeyVault port's `destroyKey`).
   * @example
   * await vault.destroyKey(record.sealedKey); // after DELETE_PRIVATE_KEYS
   */
  async destroyKey(key: SealedSecret): Promise<boolean> {
    const sealed = parseSealed(key);
    if (sealed.kind !== 'key') return false;
    const { CKA_CLASS, CKA_ID, CKA_TOKEN, CKO_PRIVATE_KEY, CKO_PUBLIC_KEY } = pkcs11js;
    this.#keys.delete(sealed.id.toString('hex'));
    return this.#token.run((p11, session) => {
      let destroyed = 0;
      for (const objectClass of [CKO_PRIVATE_KEY, CKO_PUBLIC_KEY]) {
        const template = [
          { type: CKA_CLASS, value: objectClass },
          { type: CKA_TOKEN, value: true },
          { type: CKA_ID, value: sealed.id },
        ];
        for (const handle of findObjects(p11, session, template, 8)) {
          p11.C_DestroyObject(session, handle);
          destroyed++;
        }
      }
      return destroyed > 0;
    });
  }

  /** Logs out (when this is the token's last vault in the process) and finalizes the module. */
  async close(): Promise<void> {
    this.#keys.clear();
    this.#token.close();
  }

  async #sealSeed(entropy: Uint8Array): Promise<SealedSecret> {
    const plaintext = await seedPlaintext(entropy);
    try {
      return formatSeed(this.#encrypt(SEED_PURPOSE, plaintext));
    } finally {
      plaintext.fill(0);
    }
  }

  /** Private key ‖ public key of a wrapped key; the caller zeroes it. */
  #openWrappedKey(curve: Curve, body: Buffer): Buffer {
    const plaintext = this.#decrypt(keyPurpose(curve), body);
    if (plaintext.length !== 32 + publicKeyLength(curve)) {
      plaintext.fill(0);
      openFailed();
    }
    return plaintext;
  }

  /** Entropy ‖ 64-byte seed; the caller zeroes it. */
  #openSeed(seed: SealedSecret): Buffer {
    const sealed = parseSealed(seed);
    if (sealed.kind !== 'seed') openFailed();
    const plaintext = this.#decrypt(SEED_PURPOSE, sealed.body);
    if (!isSeedPlaintextLength(plaintext.length)) {
      plaintext.fill(0);
      openFailed();
    }
    return plaintext;
  }

  #wrapKey(curve: Curve, privateKey: Uint8Array, publicKey: Uint8Array): VaultKey {
    const plaintext = keyPlaintext(privateKey, publicKey);
    try {
      return {
        key: formatWrappedKey(curve, this.#encrypt(keyPurpose(curve), plaintext)),
        publicKey: publicKey.slice(),
      };
    } finally {
      plaintext.fill(0);
    }
  }

  /** AES-256-GCM inside the token: iv ‖ ciphertext ‖ tag. */
  #encrypt(purpose: string, plaintext: Uint8Array): Buffer {
    return this.#token.run((p11, session) => {
      const iv = p11.C_GenerateRandom(session, Buffer.alloc(IV_LENGTH));
      p11.C_EncryptInit(session, gcm(iv, purpose), this.#wrappingKey);
      const ciphertext = p11.C_Encrypt(
        session,
        bufferView(plaintext),
        Buffer.alloc(plaintext.length + TAG_LENGTH),
      );
      if (ciphertext.length !== plaintext.length + TAG_LENGTH) {
        throw new Error('the HSM returned AES-GCM output of an unexpected length');
      }
      return Buffer.concat([iv, ciphertext]);
    });
  }

  /** Decrypts iv ‖ ciphertext ‖ tag inside the token; the caller zeroes the result. */
  #decrypt(purpose: string, body: Buffer): Buffer {
    const iv = body.subarray(0, IV_LENGTH);
    const ciphertext = body.subarray(IV_LENGTH);
    return this.#token.run((p11, session) => {
      p11.C_DecryptInit(session, gcm(iv, purpose), this.#wrappingKey);
      const out = Buffer.alloc(ciphertext.length);
      let plaintext: Buffer;
      try {
        plaintext = p11.C_Decrypt(session, ciphertext, out);
      } catch (error) {
        out.fill(0);
        if (isUnavailable(error)) throw hsmFailure('decrypt', error);
        return openFailed(); // wrong key, wrong purpose, a flipped bit
      }
      if (plaintext.length !== ciphertext.length - TAG_LENGTH) {
        out.fill(0);
        openFailed();
      }
      return plaintext; // a view of `out`: zeroing it zeroes the plaintext
    });
  }

  #signInToken(id: Buffer, curve: Curve, message: Uint8Array): RawSignature {
    const key = this.#findTokenKey(id, curve);
    let raw: Buffer;
    try {
      raw = this.#token.run((p11, session) => {
        const mechanism = curve === 'CURVE_ED25519' ? CKM_EDDSA : pkcs11js.CKM_ECDSA;
        p11.C_SignInit(session, { mechanism }, key.handle);
        const data = message.length === 0 ? EMPTY : bufferView(message);
        return p11.C_Sign(session, data, Buffer.alloc(64));
      });
    } catch (error) {
      const code = pkcs11ErrorName(error);
      if (code === 'CKR_KEY_HANDLE_INVALID' || code === 'CKR_OBJECT_HANDLE_INVALID') {
        this.#keys.delete(id.toString('hex')); // destroyed behind our back
        openFailed();
      }
      throw hsmFailure('sign', error);
    }
    if (raw.length !== 64) throw new Error('the HSM returned a signature of an unexpected length');
    if (curve === 'CURVE_ED25519') {
      return { r: Uint8Array.from(raw.subarray(0, 32)), s: Uint8Array.from(raw.subarray(32)) };
    }
    return toRecoverableLowS(curve, message, raw, key.publicKey);
  }

  /** The token's private key with CKA_ID `id` on `curve`, or the open error. */
  #findTokenKey(id: Buffer, curve: Curve): TokenKey {
    const cached = this.#keys.get(id.toString('hex'));
    if (cached) {
      if (cached.curve !== curve) openFailed();
      return cached;
    }
    const found = this.#token.run((p11, session) => lookUpTokenKey(p11, session, id, curve));
    if (!found) openFailed();
    this.#remember(id, found);
    return found;
  }

  #remember(id: Uint8Array, key: TokenKey): void {
    if (this.#keys.size >= MAX_CACHED_KEYS) {
      const oldest = this.#keys.keys().next();
      if (!oldest.done) this.#keys.delete(oldest.value);
    }
    this.#keys.set(Buffer.from(id).toString('hex'), {
      curve: key.curve,
      handle: key.handle,
      publicKey: key.publicKey,
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Token objects

function findObjects(
  p11: Pkcs11Module,
  session: Handle,
  template: pkcs11js.Template,
  max: number,
): Handle[] {
  p11.C_FindObjectsInit(session, template);
  try {
    return p11.C_FindObjects(session, max);
  } finally {
    p11.C_FindObjectsFinal(session);
  }
}

function findOrCreateWrappingKey(
  p11: Pkcs11Module,
  session: Handle,
  label: string,
  tokenLabel: string,
): Handle {
  const k = pkcs11js;
  const found = findObjects(
    p11,
    session,
    [
      { type: k.CKA_CLASS, value: k.CKO_SECRET_KEY },
      { type: k.CKA_TOKEN, value: true },
      { type: k.CKA_LABEL, value: label },
    ],
    2,
  );
  const where = `${JSON.stringify(label)} in token ${JSON.stringify(tokenLabel)}`;
  if (found.length > 1) {
    throw new Error(
      `more than one secret key is labelled ${where}; the wrapping key must be unique`,
    );
  }
  const existing = found[0];
  if (existing) {
    const [keyType, valueLength, sensitive, extractable, encrypt, decrypt] = p11
      .C_GetAttributeValue(session, existing, [
        { type: k.CKA_KEY_TYPE },
        { type: k.CKA_VALUE_LEN },
        { type: k.CKA_SENSITIVE },
        { type: k.CKA_EXTRACTABLE },
        { type: k.CKA_ENCRYPT },
        { type: k.CKA_DECRYPT },
      ])
      .map((attribute) => attribute.value as Buffer) as [
      Buffer,
      Buffer,
      Buffer,
      Buffer,
      Buffer,
      Buffer,
    ];
    const ok =
      readUlong(keyType) === k.CKK_AES &&
      readUlong(valueLength) === 32 &&
      readBool(sensitive) &&
      !readBool(extractable) &&
      readBool(encrypt) &&
      readBool(decrypt);
    if (!ok) {
      throw new Error(
        `the wrapping key ${where} must be a sensitive, non-extractable AES-256 key that can encrypt and decrypt`,
      );
    }
    return existing;
  }
  return p11.C_GenerateKey(session, { mechanism: k.CKM_AES_KEY_GEN }, [
    { type: k.CKA_CLASS, value: k.CKO_SECRET_KEY },
    { type: k.CKA_KEY_TYPE, value: k.CKK_AES },
    { type: k.CKA_VALUE_LEN, value: 32 },
    { type: k.CKA_TOKEN, value: true },
    { type: k.CKA_PRIVATE, value: true },
    { type: k.CKA_SENSITIVE, value: true },
    { type: k.CKA_EXTRACTABLE, value: false },
    { type: k.CKA_ENCRYPT, value: true },
    { type: k.CKA_DECRYPT, value: true },
    { type: k.CKA_WRAP, value: false },
    { type: k.CKA_UNWRAP, value: false },
    { type: k.CKA_SIGN, value: false },
    { type: k.CKA_VERIFY, value: false },
    { type: k.CKA_DERIVE, value: false },
    { type: k.CKA_MODIFIABLE, value: false },
    { type: k.CKA_LABEL, value: label },
  ]);
}

/** Generation refusals that mean "try the other CKA_EC_PARAMS encoding". */
const PARAMS_REFUSED = new Set([
  'CKR_ATTRIBUTE_VALUE_INVALID',
  'CKR_CURVE_NOT_SUPPORTED',
  'CKR_DOMAIN_PARAMS_INVALID',
  'CKR_TEMPLATE_INCONSISTENT',
]);

function generateTokenKey(
  p11: Pkcs11Module,
  session: Handle,
  curve: Curve,
  givenLabel?: string,
): TokenKey & { id: Buffer } {
  const k = pkcs11js;
  const id = p11.C_GenerateRandom(session, Buffer.alloc(KEY_ID_LENGTH));
  const label = givenLabel ?? formatKeyReference(curve, id).replace(/^kp11\.key\./, 'keyhold:');
  const edwards = curve === 'CURVE_ED25519';
  const keyType = edwards ? CKK_EC_EDWARDS : k.CKK_EC;
  const mechanism = edwards ? CKM_EC_EDWARDS_KEY_PAIR_GEN : k.CKM_EC_KEY_PAIR_GEN;
  const candidates = ecParamsOf(curve);
  for (const [index, params] of candidates.entries()) {
    let pair: pkcs11js.KeyPair;
    try {
      pair = p11.C_GenerateKeyPair(
        session,
        { mechanism },
        [
          { type: k.CKA_CLASS, value: k.CKO_PUBLIC_KEY },
          { type: k.CKA_KEY_TYPE, value: keyType },
          { type: k.CKA_TOKEN, value: true },
          { type: k.CKA_PRIVATE, value: false },
          { type: k.CKA_VERIFY, value: true },
          { type: k.CKA_DERIVE, value: false },
          { type: k.CKA_EC_PARAMS, value: params },
          { type: k.CKA_ID, value: id },
          { type: k.CKA_LABEL, value: label },
        ],
        [
          { type: k.CKA_CLASS, value: k.CKO_PRIVATE_KEY },
          { type: k.CKA_KEY_TYPE, value: keyType },
          { type: k.CKA_TOKEN, value: true },
          { type: k.CKA_PRIVATE, value: true },
          { type: k.CKA_SENSITIVE, value: true },
          { type: k.CKA_EXTRACTABLE, value: false },
          { type: k.CKA_SIGN, value: true },
          { type: k.CKA_DERIVE, value: false },
          { type: k.CKA_ID, value: id },
          { type: k.CKA_LABEL, value: label },
        ],
      );
    } catch (error) {
      const code = pkcs11ErrorName(error);
      if (code && PARAMS_REFUSED.has(code) && index < candidates.length - 1) continue;
      throw hsmFailure(`${curve} key generation`, error);
    }
    try {
      const [point] = p11.C_GetAttributeValue(session, pair.publicKey, [{ type: k.CKA_EC_POINT }]);
      const publicKey = publicKeyFromEcPoint(curve, point?.value as Buffer);
      return { id, curve, handle: pair.privateKey, publicKey };
    } catch (error) {
      p11.C_DestroyObject(session, pair.privateKey);
      p11.C_DestroyObject(session, pair.publicKey);
      throw error;
    }
  }
  throw new Error(`the HSM cannot generate ${curve} keys`);
}

/** The P-256 token key pair labelled `label` (the lowest CKA_ID when there are several). */
function findLabelledKey(
  p11: Pkcs11Module,
  session: Handle,
  label: string,
): (TokenKey & { id: Buffer }) | undefined {
  const k = pkcs11js;
  const handles = findObjects(
    p11,
    session,
    [
      { type: k.CKA_CLASS, value: k.CKO_PRIVATE_KEY },
      { type: k.CKA_TOKEN, value: true },
      { type: k.CKA_LABEL, value: label },
    ],
    16,
  );
  const ids = handles
    .map((handle) => p11.C_GetAttributeValue(session, handle, [{ type: k.CKA_ID }])[0]?.value)
    .filter((id): id is Buffer => Buffer.isBuffer(id) && id.length === KEY_ID_LENGTH)
    .sort(Buffer.compare);
  for (const id of ids) {
    const key = lookUpTokenKey(p11, session, id, 'CURVE_P256');
    if (key) return { ...key, id };
  }
  return undefined;
}

function lookUpTokenKey(
  p11: Pkcs11Module,
  session: Handle,
  id: Buffer,
  curve: Curve,
): TokenKey | undefined {
  const k = pkcs11js;
  const find = (objectClass: number) =>
    findObjects(
      p11,
      session,
      [
        { type: k.CKA_CLASS, value: objectClass },
        { type: k.CKA_TOKEN, value: true },
        { type: k.CKA_ID, value: id },
      ],
      2,
    );
  const privateKeys = find(k.CKO_PRIVATE_KEY);
  const publicKeys = find(k.CKO_PUBLIC_KEY);
  if (privateKeys.length !== 1 || publicKeys.length !== 1) return undefined;
  const handle = privateKeys[0]!;
  const [keyType, params] = p11
    .C_GetAttributeValue(session, handle, [{ type: k.CKA_KEY_TYPE }, { type: k.CKA_EC_PARAMS }])
    .map((attribute) => attribute.value as Buffer) as [Buffer, Buffer];
  const [publicParams, point] = p11
    .C_GetAttributeValue(session, publicKeys[0]!, [
      { type: k.CKA_EC_PARAMS },
      { type: k.CKA_EC_POINT },
    ])
    .map((attribute) => attribute.value as Buffer) as [Buffer, Buffer];
  const expectedType = curve === 'CURVE_ED25519' ? CKK_EC_EDWARDS : k.CKK_EC;
  if (readUlong(keyType) !== expectedType) return undefined;
  if (!ecParamsOf(curve).some((candidate) => candidate.equals(params))) return undefined;
  if (!params.equals(publicParams)) return undefined;
  try {
    return { curve, handle, publicKey: publicKeyFromEcPoint(curve, point) };
  } catch {
    return undefined;
  }
}

/**
 * The stored public key of a CKA_EC_POINT: a DER OCTET STRING around the SEC1 point (or the 32
 * Ed25519 bytes); some tokens return the bare point, which is accepted too.
 */
function publicKeyFromEcPoint(curve: Curve, value: Buffer | undefined): Uint8Array {
  if (!value) throw new Error('the HSM returned no CKA_EC_POINT');
  const size = curve === 'CURVE_ED25519' ? 32 : 65;
  let point: Buffer = value;
  if (value.length === size + 2 && value[0] === 0x04 && value[1] === size) {
    point = value.subarray(2);
  } else if (value.length === size + 3 && value[0] === 0x04 && value[1] === 0x81) {
    point = value.subarray(3);
  }
  if (point.length !== size) throw new Error('the HSM returned a malformed CKA_EC_POINT');
  return compressPublicKey(curve, point);
}

// ---------------------------------------------------------------------------------------------
// Helpers

function gcm(iv: Buffer, purpose: string): pkcs11js.Mechanism {
  const parameter: pkcs11js.AesGCM = {
    type: pkcs11js.CK_PARAMS_AES_GCM,
    iv,
    aad: Buffer.from(purpose, 'utf8'),
    ivBits: IV_LENGTH * 8,
    tagBits: TAG_LENGTH * 8,
  };
  return { mechanism: pkcs11js.CKM_AES_GCM, parameter };
}

/** A Buffer over the same memory (no copy to forget to zero). */
function bufferView(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function publicKeyLength(curve: Curve): number {
  return curve === 'CURVE_ED25519' ? 32 : 33;
}

function readBool(value: Buffer): boolean {
  return value.length > 0 && value.some((byte) => byte !== 0);
}

const LITTLE_ENDIAN = endianness() === 'LE';

/** A CK_ULONG attribute (4 or 8 bytes, native byte order). */
function readUlong(value: Buffer): number {
  if (value.length === 8) {
    return Number(LITTLE_ENDIAN ? value.readBigUInt64LE() : value.readBigUInt64BE());
  }
  if (value.length === 4) return LITTLE_ENDIAN ? value.readUInt32LE() : value.readUInt32BE();
  return -1;
}

const UNAVAILABLE =
  /^CKR_(SESSION_|DEVICE_|TOKEN_NOT_|CRYPTOKI_NOT_INITIALIZED|USER_NOT_LOGGED_IN)/;

function isUnavailable(error: unknown): boolean {
  return UNAVAILABLE.test(pkcs11ErrorName(error) ?? '');
}

function hsmFailure(operation: string, error: unknown): Error {
  const code = pkcs11ErrorName(error);
  if (!code) return error instanceof Error ? error : new Error(String(error));
  return new Error(`PKCS#11 ${operation} failed: ${code}`);
}
