/**
 * Published test vectors the KeyVault contract checks vaults against. Each comes from the
 * document named beside it, not from Keyhold's own output:
 * - the BIP39 "abandon … about" mnemonic (all-zero entropy) and the accounts wallets derive
 *   from it: BIP44 Ethereum (MetaMask, Ledger), BIP84 and BIP86 (the BIPs' own test vectors),
 *   Solana (Phantom, Solflare);
 * - RFC 6979 appendix A.2.5 (P-256, SHA-256) and the widely used RFC 6979 secp256k1 vectors;
 * - RFC 8032 section 7.1 (Ed25519), tests 1 to 3.
 * @module
 */
import type { AddressFormat } from '@keyhold/protocol';

/**
 * The BIP39 mnemonic of 16 zero bytes, the usual test wallet.
 * @example
 * const seed = await vault.importSeed(ABANDON_MNEMONIC);
 */
export const ABANDON_MNEMONIC =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

/**
 * An account of the "abandon … about" wallet, as wallets and the BIPs publish it.
 * @example
 * const [ethereum]: readonly KnownAccount[] = ABANDON_ACCOUNTS;
 * ethereum.address; // '0x9858EfFD232B4033E47d90003D41EC34EcaEda94'
 */
export interface KnownAccount {
  readonly curve: 'CURVE_SECP256K1' | 'CURVE_ED25519';
  readonly path: string;
  readonly addressFormat: AddressFormat;
  readonly address: string;
  /** The private key, where the source publishes it (hex). */
  readonly privateKey?: string;
  /** The source of the vector. */
  readonly source: string;
}

/**
 * The accounts of `ABANDON_MNEMONIC` whose addresses are published.
 * @example
 * for (const account of ABANDON_ACCOUNTS) {
 *   const { publicKey } = await vault.deriveKey(seed, account.curve, account.path);
 *   deriveAddress(account.addressFormat, account.curve, publicKey) === account.address;
 * }
 */
export const ABANDON_ACCOUNTS: readonly KnownAccount[] = [
  {
    curve: 'CURVE_SECP256K1',
    path: "m/44'/60'/0'/0/0",
    addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
    address: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
    privateKey: '1ab42cc412b618bdea3a599e3c9bae199ebf030895b039e9db1e30dafb12b727',
    source: 'BIP44 Ethereum account 0 (MetaMask, Ledger, ethers test suites)',
  },
  {
    curve: 'CURVE_SECP256K1',
    path: "m/84'/0'/0'/0/0",
    addressFormat: 'ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH',
    address: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
    privateKey: '4604b4b710fe91f584fff084e1a9159fe4f8408fff380596a604948474ce4fa3',
    source: 'BIP84 test vectors, first receiving address',
  },
  {
    curve: 'CURVE_SECP256K1',
    path: "m/86'/0'/0'/0/0",
    addressFormat: 'ADDRESS_FORMAT_BITCOIN_MAINNET_P2TR',
    address: 'bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr',
    privateKey: '41f41d69260df4cf277826a9b65a3717e4eeddbeedf637f212ca096576479361',
    source: 'BIP86 test vectors, first receiving address',
  },
  {
    curve: 'CURVE_ED25519',
    path: "m/44'/501'/0'/0'",
    addressFormat: 'ADDRESS_FORMAT_SOLANA',
    address: 'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk',
    source: 'Solana account 0 (Phantom, Solflare; SLIP-10 ed25519)',
  },
];

/**
 * BIP86's first receiving key of the "abandon … about" wallet: its x-only internal key and the
 * BIP341 output key (the internal key tweaked with no script tree).
 * @example
 * taprootTweakPubkey(hexToBytes(BIP86_VECTOR.internalKey), new Uint8Array())[0]; // outputKey
 */
export const BIP86_VECTOR = {
  path: "m/86'/0'/0'/0/0",
  internalKey: 'cc8a4bc64d897bddc5fbc2f670f7a8ba0b386779106cf1223c6fc5d7cd6fc115',
  outputKey: 'a60869f0dbcf1dc659c9cecbaf8050135ea9e8cdc487053f1dc6880949dc684c',
} as const;

/**
 * One ECDSA vector: a key, a message (SHA-256 hashed into the digest) and the low-S (r, s).
 * @example
 * const vector: EcdsaVector = RFC6979_VECTORS[0]!; // P-256, "sample"
 */
export interface EcdsaVector {
  readonly curve: 'CURVE_SECP256K1' | 'CURVE_P256';
  readonly privateKey: string;
  readonly message: string;
  readonly r: string;
  /** The low-S form (min(s, n − s)), which every Keyhold vault must return. */
  readonly s: string;
  readonly source: string;
}

const RFC6979_P256_KEY = 'c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721';
const SECP256K1_SOURCE = 'RFC 6979 secp256k1 vectors (bitcointalk 285142; bitcoinj, Trezor)';

/**
 * RFC 6979 deterministic ECDSA vectors over SHA-256 digests, with s in its low-S form (for
 * P-256 "sample" the RFC prints the high-S value; the vector holds n − s).
 * @example
 * const { key } = await vault.importKey(v.curve, hexToBytes(v.privateKey));
 * const signature = await vault.sign(key, v.curve, sha256(utf8ToBytes(v.message)));
 * bytesToHex(signature.r) === v.r && bytesToHex(signature.s) === v.s;
 */
export const RFC6979_VECTORS: readonly EcdsaVector[] = [
  {
    curve: 'CURVE_P256',
    privateKey: RFC6979_P256_KEY,
    message: 'sample',
    r: 'efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716',
    s: '0834e36ad29a83bf2bc9385e491d6099c8fdf9d1ed67aa7ea5f51f93782857a9',
    source:
      'RFC 6979 A.2.5, P-256, SHA-256, "sample" (the RFC prints the high-S s, f7cb1c94…cda8: here n − s)',
  },
  {
    curve: 'CURVE_P256',
    privateKey: RFC6979_P256_KEY,
    message: 'test',
    r: 'f1abb023518351cd71d881567b1ea663ed3efcf6c5132b354f28d3b0b7d38367',
    s: '019f4113742a2b14bd25926b49c649155f267e60d3814b4c0cc84250e46f0083',
    source: 'RFC 6979 A.2.5, P-256, SHA-256, "test"',
  },
  {
    curve: 'CURVE_SECP256K1',
    privateKey: '0000000000000000000000000000000000000000000000000000000000000001',
    message: 'Satoshi Nakamoto',
    r: '934b1ea10a4b3c1757e2b0c017d0b6143ce3c9a7e6a4a49860d7a6ab210ee3d8',
    s: '2442ce9d2b916064108014783e923ec36b49743e2ffa1c4496f01a512aafd9e5',
    source: SECP256K1_SOURCE,
  },
  {
    curve: 'CURVE_SECP256K1',
    privateKey: '0000000000000000000000000000000000000000000000000000000000000001',
    message: 'All those moments will be lost in time, like tears in rain. Time to die...',
    r: '8600dbd41e348fe5c9465ab92d23e3db8b98b873beecd930736488696438cb6b',
    s: '547fe64427496db33bf66019dacbf0039c04199abb0122918601db38a72cfc21',
    source: SECP256K1_SOURCE,
  },
  {
    curve: 'CURVE_SECP256K1',
    privateKey: 'fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364140',
    message: 'Satoshi Nakamoto',
    r: 'fd567d121db66e382991534ada77a6bd3106f0a1098c231e47993447cd6af2d0',
    s: '6b39cd0eb1bc8603e159ef5c20a5c8ad685a45b06ce9bebed3f153d10d93bed5',
    source: SECP256K1_SOURCE,
  },
  {
    curve: 'CURVE_SECP256K1',
    privateKey: 'f8b8af8ce3c7cca5e300d33939540c10d45ce001b8f252bfbc57ba0342904181',
    message: 'Alan Turing',
    r: '7063ae83e7f62bbb171798131b4a0564b956930092b33b07b395615d9ec7e15c',
    s: '58dfcc1e00a35e1572f366ffe34ba0fc47db1e7189759b9fb233c5b05ab388ea',
    source: SECP256K1_SOURCE,
  },
  {
    curve: 'CURVE_SECP256K1',
    privateKey: 'e91671c46231f833a6406ccbea0e3e392c76c167bac1cb013f6f1013980455c2',
    message:
      "There is a computer disease that anybody who works with computers knows about. It's a very serious disease and it interferes completely with the work. The trouble with computers is that you 'play' with them!",
    r: 'b552edd27580141f3b2a5463048cb7cd3e047b97c9f98076c32dbdf85a68718b',
    s: '279fa72dd19bfae05577e06c7c0c1900c371fcd5893f7e1d56a37d30174671f6',
    source: SECP256K1_SOURCE,
  },
];

/**
 * One Ed25519 vector: the 32-byte private key (RFC 8032's "SECRET KEY"), the public key, the
 * message and the signature, in hex.
 * @example
 * const vector: Ed25519Vector = RFC8032_VECTORS[0]!; // TEST 1, the empty message
 */
export interface Ed25519Vector {
  readonly privateKey: string;
  readonly publicKey: string;
  /** Hex. */
  readonly message: string;
  readonly signature: string;
  readonly source: string;
}

/**
 * RFC 8032 section 7.1, tests 1 to 3.
 * @example
 * const { key, publicKey } = await vault.importKey('CURVE_ED25519', hexToBytes(v.privateKey));
 * const { r, s } = await vault.sign(key, 'CURVE_ED25519', hexToBytes(v.message));
 * bytesToHex(r) + bytesToHex(s) === v.signature;
 */
export const RFC8032_VECTORS: readonly Ed25519Vector[] = [
  {
    privateKey: '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
    publicKey: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
    message: '',
    signature:
      'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
    source: 'RFC 8032 7.1 TEST 1',
  },
  {
    privateKey: '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb',
    publicKey: '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c',
    message: '72',
    signature:
      '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00',
    source: 'RFC 8032 7.1 TEST 2',
  },
  {
    privateKey: 'c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7',
    publicKey: 'fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025',
    message: 'af82',
    signature:
      '6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a',
    source: 'RFC 8032 7.1 TEST 3',
  },
];
