/**
 * Facts about each address format that do not depend on a key: which curve it needs and the
 * default derivation path of account `i` (wire-compat §7.5, the table of @turnkey/sdk-server's
 * `turnkey-helpers.ts`). Handlers use them to validate a requested (curve, format) pair and
 * clients' defaults can be reproduced server-side.
 * @module
 */
import {
  ADDRESS_FORMATS,
  type AddressFormat,
  CURVES,
  type Curve,
  KeyholdError,
} from '@keyhold/protocol';
import { HARDENED_OFFSET } from './derivation-path.js';

/** `i` stands for the account index (hardened). */
const DEFAULT_PATHS: Partial<Record<AddressFormat, string>> = {
  ADDRESS_FORMAT_ETHEREUM: "m/44'/60'/i'/0/0",
  ADDRESS_FORMAT_COSMOS: "m/44'/118'/i'/0/0",
  ADDRESS_FORMAT_TRON: "m/44'/195'/i'",
  ...bitcoin('MAINNET', 0),
  ...bitcoin('TESTNET', 1),
  ...bitcoin('SIGNET', 1),
  ...bitcoin('REGTEST', 1),
  ADDRESS_FORMAT_DOGE_MAINNET: "m/44'/3'/i'/0/0",
  ADDRESS_FORMAT_DOGE_TESTNET: "m/44'/3'/i'/0/0",
  ADDRESS_FORMAT_SEI: "m/44'/118'/i'/0'/0'",
  ADDRESS_FORMAT_XRP: "m/44'/144'/i'/0'/0'",
  ADDRESS_FORMAT_SOLANA: "m/44'/501'/i'/0'",
  ADDRESS_FORMAT_SUI: "m/44'/784'/i'/0'/0'",
  ADDRESS_FORMAT_APTOS: "m/44'/637'/i'/0'/0'",
  ADDRESS_FORMAT_XLM: "m/44'/148'/i'",
  ADDRESS_FORMAT_TON_V3R2: "m/44'/607'/i'/0'/0'",
  ADDRESS_FORMAT_TON_V4R2: "m/44'/607'/i'/0'/0'",
  ADDRESS_FORMAT_SPARK_MAINNET: "m/86'/0'/i'/0/0",
  ADDRESS_FORMAT_SPARK_REGTEST: "m/86'/1'/i'/0/0",
};

const ED25519_FORMATS: readonly AddressFormat[] = [
  'ADDRESS_FORMAT_SOLANA',
  'ADDRESS_FORMAT_SUI',
  'ADDRESS_FORMAT_APTOS',
  'ADDRESS_FORMAT_XLM',
  'ADDRESS_FORMAT_TON_V3R2',
  'ADDRESS_FORMAT_TON_V4R2',
  'ADDRESS_FORMAT_TON_V5R1',
];

/**
 * The curves whose keys an address format can encode: every curve for COMPRESSED, the ECDSA
 * curves (secp256k1, P-256) for UNCOMPRESSED, Ed25519 for Solana, Sui, Aptos, Stellar (XLM) and
 * TON, secp256k1 for the rest (Ethereum, Cosmos, Sei, Tron, Bitcoin, Dogecoin, XRP, Spark);
 * none for UNSPECIFIED or an unknown string. This is Turnkey's table: its SDK's default account
 * of every format has exactly this curve, and P-256 keys only get the public-key formats. (Sui
 * could encode secp256k1 and P-256 keys with flags 0x01/0x02, but Turnkey derives Sui addresses
 * from Ed25519 only. Turnkey's wallet docs list SEI under Ed25519; its SDK, Sei and the Cosmos
 * path say secp256k1.)
 * @example
 * curvesForAddressFormat('ADDRESS_FORMAT_SOLANA'); // ['CURVE_ED25519']
 */
export function curvesForAddressFormat(format: AddressFormat): readonly Curve[] {
  if (!(ADDRESS_FORMATS as readonly string[]).includes(format)) return [];
  switch (format) {
    case 'ADDRESS_FORMAT_UNSPECIFIED':
      return [];
    case 'ADDRESS_FORMAT_COMPRESSED':
      return CURVES;
    case 'ADDRESS_FORMAT_UNCOMPRESSED':
      return ['CURVE_SECP256K1', 'CURVE_P256'];
    default:
      return ED25519_FORMATS.includes(format) ? ['CURVE_ED25519'] : ['CURVE_SECP256K1'];
  }
}

/**
 * The default derivation path of account `accountIndex` for an address format, or `undefined`
 * for the formats that have none (UNCOMPRESSED, COMPRESSED, TON_V5R1, UNSPECIFIED). Refuses an
 * index that is not an integer in [0, 2^31) with INVALID_PATH.
 * @example
 * defaultPathFor('ADDRESS_FORMAT_ETHEREUM', 2); // "m/44'/60'/2'/0/0"
 * defaultPathFor('ADDRESS_FORMAT_SOLANA', 0); // "m/44'/501'/0'/0'"
 */
export function defaultPathFor(format: AddressFormat, accountIndex: number): string | undefined {
  if (!Number.isInteger(accountIndex) || accountIndex < 0 || accountIndex >= HARDENED_OFFSET) {
    throw new KeyholdError('INVALID_PATH', {
      accountIndex: String(accountIndex),
      reason: 'account index must be an integer from 0 to 2^31-1',
    });
  }
  return Object.hasOwn(DEFAULT_PATHS, format)
    ? DEFAULT_PATHS[format]?.replace('i', String(accountIndex))
    : undefined;
}

function bitcoin(network: string, coin: number): Partial<Record<AddressFormat, string>> {
  const prefix = `ADDRESS_FORMAT_BITCOIN_${network}_`;
  return {
    [`${prefix}P2PKH`]: `m/44'/${coin}'/i'/0/0`,
    [`${prefix}P2SH`]: `m/44'/${coin}'/i'/0/0`,
    [`${prefix}P2WPKH`]: `m/84'/${coin}'/i'/0/0`,
    [`${prefix}P2WSH`]: `m/48'/${coin}'/i'/2'/0/0`,
    [`${prefix}P2TR`]: `m/86'/${coin}'/i'/0/0`,
  };
}
