/**
 * @keyhold/keys — the pure key domain: BIP39 mnemonics, BIP32 and SLIP-10 derivation, public
 * keys and addresses, payload encodings and hashes, the wire form of signatures, and the
 * KeyVault port that adapters (software, PKCS#11) implement. No I/O.
 * @module
 */

export * from './address.js';
export * from './address-format.js';
export * from './bundles/index.js';
export * from './crypto-jobs.js';
export * from './crypto-work-pool.js';
export * from './curves.js';
export * from './derivation-path.js';
export {
  type Eip7702AuthorizationView,
  hashEip7702Authorization,
  type ParsedEip7702Authorization,
  parseEip7702Authorization,
  prepareEip7702Payload,
} from './eip7702.js';
export * from './hd-derivation.js';
export * from './hd-derivation-batch.js';
export * from './key-vault.js';
export * from './mnemonic.js';
export * from './payload.js';
export * from './private-key-signing.js';
export * from './public-key.js';
export * from './signature-format.js';
export * from './slip10.js';
export type {
  BitcoinInputView,
  BitcoinOutputView,
  BitcoinTransactionView,
  ParsedBitcoinTransaction,
  SchnorrSigner,
} from './transactions/bitcoin.js';
export type {
  EthereumTransactionType,
  EthereumTransactionView,
  ParsedEthereumTransaction,
} from './transactions/ethereum.js';
export * from './transactions/sign-transaction.js';
export type {
  ParsedSolanaTransaction,
  SolanaAccountView,
  SolanaAddressTableLookupView,
  SolanaInstructionView,
  SolanaMessage,
  SolanaSplTransferView,
  SolanaTransactionView,
  SolanaTransferView,
} from './transactions/solana.js';
export type {
  ParsedTronTransaction,
  TronContractView,
  TronPermissionView,
  TronTransactionView,
} from './transactions/tron.js';
export {
  type Eip712View,
  hashTypedDataPayload,
  type ParsedTypedData,
  parseTypedData,
  prepareEip712Payload,
} from './typed-data.js';
export * from './vault-plaintext.js';
