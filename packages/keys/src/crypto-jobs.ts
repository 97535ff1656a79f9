/**
 * The CPU-heavy key computations a request may need, as pure functions of plain data, so that
 * a `CryptoWorkPool` can run them on another thread: BIP32/SLIP-10 derivation from a BIP39
 * seed (one key, or many sharing their common nodes), public-key → address (the Taproot tweak is a point multiplication), and signing with
 * an opened private key (noble ECDSA, BIP340). No master key, no sealed secret, no I/O: a job
 * gets exactly the bytes it computes with, and inputs and outputs are structured-clonable.
 *
 * Secret inputs (`CRYPTO_JOB_SECRETS`) are **consumed**: the job zeroes them when it is done,
 * and a pool that crosses threads moves them (the caller's buffer is zeroed at once). Secret
 * outputs (the private key of `deriveKey`) belong to the caller, who zeroes them after use.
 * @module
 */
import type { AddressFormat, Curve } from '@keyhold/protocol';
import { deriveAddress } from './address.js';
import { deriveKeyFromSeed } from './hd-derivation.js';
import {
  type DerivationRequest,
  type DerivedAccountKey,
  deriveKeysFromSeed,
} from './hd-derivation-batch.js';
import type { RawSignature } from './key-vault.js';
import { signTaprootWithPrivateKey, signWithPrivateKey } from './private-key-signing.js';

/**
 * Every job: its input and its output.
 * @example
 * const input: CryptoJobs['deriveKey']['input'] = { seed: bip39Seed, curve: 'CURVE_ED25519', path: "m/44'/501'/0'/0'" };
 */
export interface CryptoJobs {
  /** The key at `path` from a BIP39 seed (16–64 bytes). Consumes `seed`. */
  deriveKey: {
    input: { seed: Uint8Array; curve: Curve; path: string };
    output: { privateKey: Uint8Array; publicKey: Uint8Array };
  };
  /** `deriveKeysFromSeed`: the keys at `requests`, in order. Consumes `seed`. */
  deriveKeys: {
    input: { seed: Uint8Array; requests: readonly DerivationRequest[] };
    output: DerivedAccountKey[];
  };
  /** For each item, the address of `publicKey` in each of `formats` (public data only). */
  addresses: {
    input: {
      items: readonly {
        curve: Curve;
        publicKey: Uint8Array;
        formats: readonly AddressFormat[];
      }[];
    };
    output: string[][];
  };
  /** `signWithPrivateKey`. Consumes `privateKey`. */
  sign: {
    input: { curve: Curve; privateKey: Uint8Array; publicKey: Uint8Array; message: Uint8Array };
    output: RawSignature;
  };
  /** `signTaprootWithPrivateKey` (BIP340 under the BIP341-tweaked key). Consumes `privateKey`. */
  signTaproot: {
    input: { privateKey: Uint8Array; digest: Uint8Array; merkleRoot: Uint8Array };
    output: Uint8Array;
  };
}

/**
 * The name of a job.
 * @example
 * const name: CryptoJobName = 'deriveKey';
 */
export type CryptoJobName = keyof CryptoJobs;
/**
 * The input of job `N`.
 * @example
 * const input: CryptoJobInput<'addresses'> = { items: [] };
 */
export type CryptoJobInput<N extends CryptoJobName> = CryptoJobs[N]['input'];
/**
 * The output of job `N`.
 * @example
 * const signature: CryptoJobOutput<'signTaproot'> = await pool.run('signTaproot', input);
 */
export type CryptoJobOutput<N extends CryptoJobName> = CryptoJobs[N]['output'];

/**
 * The input fields each job consumes (zeroes when done). A pool that crosses threads moves
 * these buffers instead of copying them.
 * @example
 * CRYPTO_JOB_SECRETS.deriveKey; // ['seed']
 */
export const CRYPTO_JOB_SECRETS: { readonly [N in CryptoJobName]: readonly string[] } = {
  deriveKey: ['seed'],
  deriveKeys: ['seed'],
  addresses: [],
  sign: ['privateKey'],
  signTaproot: ['privateKey'],
};

type JobTable = { readonly [N in CryptoJobName]: (input: CryptoJobInput<N>) => CryptoJobOutput<N> };

const JOBS: JobTable = {
  deriveKey({ seed, curve, path }) {
    try {
      const derived = deriveKeyFromSeed(seed, curve, path);
      derived.chainCode.fill(0);
      return { privateKey: derived.privateKey, publicKey: derived.publicKey };
    } finally {
      seed.fill(0);
    }
  },
  deriveKeys({ seed, requests }) {
    try {
      return deriveKeysFromSeed(seed, requests);
    } finally {
      seed.fill(0);
    }
  },
  addresses({ items }) {
    return items.map(({ curve, publicKey, formats }) =>
      formats.map((format) => deriveAddress(format, curve, publicKey)),
    );
  },
  sign({ curve, privateKey, publicKey, message }) {
    try {
      return signWithPrivateKey(curve, privateKey, publicKey, message);
    } finally {
      privateKey.fill(0);
    }
  },
  signTaproot({ privateKey, digest, merkleRoot }) {
    try {
      return signTaprootWithPrivateKey(privateKey, digest, merkleRoot);
    } finally {
      privateKey.fill(0);
    }
  },
};

/**
 * Runs job `name` on this thread. Pools call it (the inline pool directly, a worker thread on
 * its side); a name that is not a job throws a TypeError.
 * @example
 * const [[address]] = runCryptoJob('addresses', {
 *   items: [{ curve: 'CURVE_SECP256K1', publicKey, formats: ['ADDRESS_FORMAT_ETHEREUM'] }],
 * });
 */
export function runCryptoJob<N extends CryptoJobName>(
  name: N,
  input: CryptoJobInput<N>,
): CryptoJobOutput<N> {
  if (!Object.hasOwn(JOBS, name)) throw new TypeError(`unknown crypto job "${String(name)}"`);
  return (JOBS[name] as (input: CryptoJobInput<N>) => CryptoJobOutput<N>)(input);
}
