/**
 * One logged-in connection to one PKCS#11 token: load the module, find the token by label, open
 * a read-write session, log in as the user.
 *
 * PKCS#11 state is per process, not per connection, and two facts shape this file:
 * - A module is initialized once per process (a second C_Initialize fails with
 *   CKR_CRYPTOKI_ALREADY_INITIALIZED, and one C_Finalize ends it for everybody). So loaded
 *   modules are shared and reference-counted: the last connection to close finalizes.
 * - A login belongs to the token, not the session (a second C_Login answers
 *   CKR_USER_ALREADY_LOGGED_IN without checking the PIN; C_Logout logs out every session). So
 *   logins are shared and reference-counted too, and a second connection to a token that is
 *   already logged in must present the same PIN, compared against an HMAC of the first one
 *   (the PIN itself is not kept).
 *
 * Every pkcs11js call used here is synchronous, so an operation (C_SignInit + C_Sign, …) never
 * interleaves with another on the same session. After a failed call the session is replaced (a
 * new one is opened before the old one is closed, so the login survives): some failures leave
 * an operation active (SoftHSM: C_Sign answering CKR_ARGUMENTS_BAD), which would otherwise
 * poison every later call with CKR_OPERATION_ACTIVE.
 * @module
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import pkcs11js from 'pkcs11js';

/** A pkcs11js PKCS#11 module instance. */
export type Pkcs11Module = InstanceType<typeof pkcs11js.PKCS11>;
/** A PKCS#11 handle (slot, session, object) as pkcs11js represents it. */
export type Handle = Buffer;

interface LoginEntry {
  refs: number;
  readonly pinTag: Buffer;
}

interface ModuleEntry {
  readonly pkcs11: Pkcs11Module;
  refs: number;
  /** False when something else in the process had initialized the module before us. */
  readonly finalizeOnLastClose: boolean;
  readonly logins: Map<string, LoginEntry>;
}

const modules = new Map<string, ModuleEntry>();
const PIN_TAG_KEY = randomBytes(32);
const pinTagOf = (pin: string) => createHmac('sha256', PIN_TAG_KEY).update(pin, 'utf8').digest();

/** The PKCS#11 return-value name of an error thrown by pkcs11js, e.g. `CKR_PIN_INCORRECT`. */
export function pkcs11ErrorName(error: unknown): string | undefined {
  const message = error instanceof Error ? error.message : '';
  return /^CKR_[A-Z0-9_]+/.exec(message)?.[0];
}

/** Where and how to log in. */
export interface TokenLogin {
  readonly modulePath: string;
  readonly tokenLabel: string;
  readonly pin: string;
}

/**
 * A logged-in read-write session on one token.
 * @example
 * const token = Pkcs11Token.open({ modulePath, tokenLabel: 'keyhold', pin });
 * const random = token.run((p11, session) => p11.C_GenerateRandom(session, Buffer.alloc(32)));
 * token.close();
 */
export class Pkcs11Token {
  readonly label: string;
  readonly serialNumber: string;
  readonly #modulePath: string;
  readonly #module: ModuleEntry;
  readonly #loginKey: string;
  readonly #slot: Handle;
  #session: Handle | undefined;

  private constructor(
    modulePath: string,
    entry: ModuleEntry,
    slot: Handle,
    label: string,
    serialNumber: string,
    session: Handle,
  ) {
    this.#modulePath = modulePath;
    this.#module = entry;
    this.#slot = slot;
    this.label = label;
    this.serialNumber = serialNumber;
    this.#loginKey = `${serialNumber}\u0000${label}`;
    this.#session = session;
  }

  /** Opens a session on the token labelled `tokenLabel` and logs in with `pin`. */
  static open(login: TokenLogin): Pkcs11Token {
    const { modulePath, tokenLabel, pin } = login;
    const entry = acquireModule(modulePath);
    let session: Handle | undefined;
    try {
      const { slot, serialNumber } = findToken(entry.pkcs11, modulePath, tokenLabel);
      const { CKF_SERIAL_SESSION, CKF_RW_SESSION } = pkcs11js;
      session = entry.pkcs11.C_OpenSession(slot, CKF_SERIAL_SESSION | CKF_RW_SESSION);
      const loginKey = `${serialNumber}\u0000${tokenLabel}`;
      logIn(entry, loginKey, session, tokenLabel, pin);
      return new Pkcs11Token(modulePath, entry, slot, tokenLabel, serialNumber, session);
    } catch (error) {
      if (session) closeQuietly(entry.pkcs11, session);
      releaseModule(modulePath);
      throw error;
    }
  }

  /** True until `close()`. */
  get isOpen(): boolean {
    return this.#session !== undefined;
  }

  /**
   * Runs `fn` with the module and the session. A PKCS#11 failure replaces the session (so no
   * half-finished operation survives) and is rethrown.
   */
  run<T>(fn: (pkcs11: Pkcs11Module, session: Handle) => T): T {
    const session = this.#session;
    if (!session) throw new Error('the PKCS#11 vault is closed');
    try {
      return fn(this.#module.pkcs11, session);
    } catch (error) {
      this.#replaceSession(session);
      throw error;
    }
  }

  /** Closes the session; logs out if it was the token's last one here; finalizes if last. */
  close(): void {
    const session = this.#session;
    if (!session) return;
    this.#session = undefined;
    const { pkcs11, logins } = this.#module;
    const login = logins.get(this.#loginKey);
    if (login && --login.refs === 0) {
      logins.delete(this.#loginKey);
      try {
        pkcs11.C_Logout(session);
      } catch {
        // already logged out (token removed, …): nothing to undo
      }
    }
    closeQuietly(pkcs11, session);
    releaseModule(this.#modulePath);
  }

  #replaceSession(broken: Handle): void {
    if (this.#session !== broken) return;
    const { pkcs11 } = this.#module;
    try {
      const { CKF_SERIAL_SESSION, CKF_RW_SESSION } = pkcs11js;
      this.#session = pkcs11.C_OpenSession(this.#slot, CKF_SERIAL_SESSION | CKF_RW_SESSION);
    } catch {
      return; // keep the old one; the next call reports whatever is wrong
    }
    closeQuietly(pkcs11, broken);
  }
}

function acquireModule(modulePath: string): ModuleEntry {
  const existing = modules.get(modulePath);
  if (existing) {
    existing.refs++;
    return existing;
  }
  const pkcs11 = new pkcs11js.PKCS11();
  try {
    pkcs11.load(modulePath);
  } catch (error) {
    throw new Error(
      `cannot load the PKCS#11 module ${modulePath}: ${error instanceof Error ? error.message : error}`,
    );
  }
  let finalizeOnLastClose = true;
  try {
    pkcs11.C_Initialize({ flags: pkcs11js.CKF_OS_LOCKING_OK });
  } catch (error) {
    if (pkcs11ErrorName(error) !== 'CKR_CRYPTOKI_ALREADY_INITIALIZED') {
      try {
        pkcs11.close();
      } catch {
        // not loaded after all
      }
      throw new Error(`cannot initialize the PKCS#11 module ${modulePath}: ${errorText(error)}`);
    }
    finalizeOnLastClose = false;
  }
  const entry: ModuleEntry = { pkcs11, refs: 1, finalizeOnLastClose, logins: new Map() };
  modules.set(modulePath, entry);
  return entry;
}

function releaseModule(modulePath: string): void {
  const entry = modules.get(modulePath);
  if (!entry || --entry.refs > 0) return;
  modules.delete(modulePath);
  if (entry.finalizeOnLastClose) {
    try {
      entry.pkcs11.C_Finalize();
    } catch {
      // nothing left to release
    }
  }
}

function findToken(
  pkcs11: Pkcs11Module,
  modulePath: string,
  tokenLabel: string,
): { slot: Handle; serialNumber: string } {
  const matches: { slot: Handle; serialNumber: string }[] = [];
  const seen: string[] = [];
  for (const slot of pkcs11.C_GetSlotList(true)) {
    const info = pkcs11.C_GetTokenInfo(slot);
    if ((info.flags & pkcs11js.CKF_TOKEN_INITIALIZED) === 0) continue;
    const label = unpad(info.label);
    seen.push(JSON.stringify(label));
    if (label === tokenLabel) {
      matches.push({ slot, serialNumber: unpad(info.serialNumber) });
    }
  }
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1) {
    throw new Error(
      `${matches.length} PKCS#11 tokens are labelled ${JSON.stringify(tokenLabel)}; labels must be unique`,
    );
  }
  throw new Error(
    `no initialized PKCS#11 token labelled ${JSON.stringify(tokenLabel)} in ${modulePath}` +
      ` (tokens: ${seen.length > 0 ? seen.sort().join(', ') : 'none'})`,
  );
}

function logIn(
  entry: ModuleEntry,
  loginKey: string,
  session: Handle,
  tokenLabel: string,
  pin: string,
): void {
  const pinTag = pinTagOf(pin);
  const existing = entry.logins.get(loginKey);
  if (existing) {
    if (!timingSafeEqual(existing.pinTag, pinTag))
      throw loginError(tokenLabel, 'CKR_PIN_INCORRECT');
    existing.refs++;
    return;
  }
  const { pkcs11 } = entry;
  try {
    pkcs11.C_Login(session, pkcs11js.CKU_USER, pin);
  } catch (error) {
    if (pkcs11ErrorName(error) !== 'CKR_USER_ALREADY_LOGGED_IN') {
      throw loginError(tokenLabel, pkcs11ErrorName(error) ?? errorText(error));
    }
    // Logged in by something else in this process: log in again so the PIN is checked.
    try {
      pkcs11.C_Logout(session);
      pkcs11.C_Login(session, pkcs11js.CKU_USER, pin);
    } catch (again) {
      throw loginError(tokenLabel, pkcs11ErrorName(again) ?? errorText(again));
    }
  }
  entry.logins.set(loginKey, { refs: 1, pinTag });
}

const LOGIN_REASONS: Record<string, string> = {
  CKR_PIN_INCORRECT: 'incorrect PIN',
  CKR_PIN_LEN_RANGE: 'incorrect PIN',
  CKR_PIN_LOCKED: 'the PIN is locked',
  CKR_PIN_EXPIRED: 'the PIN has expired',
  CKR_USER_PIN_NOT_INITIALIZED: 'the user PIN is not initialized',
};

function loginError(tokenLabel: string, code: string): Error {
  const reason = LOGIN_REASONS[code] ?? code;
  return new Error(
    `PKCS#11 login to token ${JSON.stringify(tokenLabel)} failed: ${reason}` +
      (reason === code ? '' : ` (${code})`),
  );
}

/** A PKCS#11 fixed-width text field without its blank (or NUL) padding. */
function unpad(text: string): string {
  let end = text.length;
  while (end > 0 && (text[end - 1] === ' ' || text.charCodeAt(end - 1) === 0)) end--;
  return text.slice(0, end);
}

function closeQuietly(pkcs11: Pkcs11Module, session: Handle): void {
  try {
    pkcs11.C_CloseSession(session);
  } catch {
    // already closed
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
