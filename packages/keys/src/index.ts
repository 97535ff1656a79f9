/**
 * @keyhold/keys — the pure key domain: BIP39 mnemonics, BIP32 and SLIP-10 derivation, public
 * keys and addresses, payload encodings and hashes, the wire form of signatures, and the
 * KeyVault port that adapters (software, PKCS#11) implement. No I/O.
 * @module
 */

export { checksumEthereumAddress, deriveAddress, SUPPORTED_ADDRESS_FORMATS } from './address.js';
export { curvesForAddressFormat, defaultPathFor } from './address-format.js';
export {
  BUNDLE_HPKE_INFO,
  BUNDLE_VERSION,
  type BundleSigner,
  bundleSignerPublicKey,
  type CreateCredentialBundleInput,
  type CreateExportBundleInput,
  type CreateImportTargetInput,
  createCredentialBundle,
  createExportBundle,
  createImportTarget,
  createOtpTargetBundle,
  deriveImportTargetKey,
  type ImportTarget,
  MAX_IMPORT_CIPHERTEXT_BYTES,
  MAX_ON_RAMP_SECRET_BYTES,
  MAX_QUORUM_ENVELOPE_BYTES,
  type OpenImportBundleInput,
  type OtpBundleContent,
  openImportBundle,
  openOnRampSecret,
  openOtpBundle,
  openQuorumEnvelope,
  openSealedSecret,
  parseImportedMnemonic,
  parseImportedPrivateKey,
  type SignedEnvelope,
  sealSecret,
} from './bundles/index.js';
export {
  type ContractInterfaceType,
  checkContractInterface,
  contractAddressKey,
} from './contract-interfaces/contract-interface.js';
export {
  ABI_MAX_ARRAY_DIMENSIONS,
  ABI_MAX_COMPONENTS,
  ABI_MAX_FIXED_ARRAY_LENGTH,
  ABI_MAX_ITEMS,
  ABI_MAX_TUPLE_DEPTH,
  CONTRACT_INTERFACE_MAX_BYTES,
  ContractInterfaceError,
  decodeEthereumCall,
  type EthereumAbi,
  type EthereumCallView,
  MAX_DECODED_VALUES,
  parseEthereumAbi,
} from './contract-interfaces/ethereum-abi.js';
export {
  type DecodeBudget,
  decodeSolanaInstruction,
  IDL_MAX_ENTRIES,
  IDL_MAX_TYPE_DEPTH,
  parseSolanaIdl,
  type SolanaIdl,
  type SolanaParsedInstructionView,
} from './contract-interfaces/solana-idl.js';
export {
  CRYPTO_JOB_SECRETS,
  type CryptoJobInput,
  type CryptoJobName,
  type CryptoJobOutput,
  type CryptoJobs,
  runCryptoJob,
} from './crypto-jobs.js';
export { CryptoWorkPool, inlineCryptoWorkPool } from './crypto-work-pool.js';
export { assertCurve, type EcdsaCurve, ecdsaOf, isEcdsaCurve } from './curves.js';
export {
  formatDerivationPath,
  HARDENED_OFFSET,
  isHardenedIndex,
  MAX_PATH_DEPTH,
  MAX_PATH_LENGTH,
  parseDerivationPath,
} from './derivation-path.js';
export {
  type Eip7702AuthorizationView,
  hashEip7702Authorization,
  type ParsedEip7702Authorization,
  parseEip7702Authorization,
  prepareEip7702Payload,
} from './eip7702.js';
export { type DerivedKey, deriveKeyFromSeed } from './hd-derivation.js';
export {
  type DerivationRequest,
  type DerivedAccountKey,
  deriveKeysFromSeed,
} from './hd-derivation-batch.js';
export { KeyVault, type RawSignature, type SealedSecret, type VaultKey } from './key-vault.js';
export {
  assertValidMnemonic,
  entropyToMnemonic,
  generateMnemonic,
  isValidMnemonic,
  type MnemonicLength,
  mnemonicEntropyLength,
  mnemonicToEntropy,
  mnemonicToSeed,
  mnemonicToSeedSync,
  normalizeMnemonic,
} from './mnemonic.js';
export { type PayloadRequest, preparePayload } from './payload.js';
export {
  assertSignableMessage,
  assertTaprootRequest,
  signTaprootWithPrivateKey,
  signWithPrivateKey,
} from './private-key-signing.js';
export {
  type AppProofSubject,
  type BootStatement,
  createSoftwareAppProof,
  createSoftwareBootProof,
  SOFTWARE_BOOT_PROOF_LABEL,
  SOFTWARE_PROOF_LABEL,
} from './proofs/software-proofs.js';
export {
  compressPublicKey,
  decompressPublicKey,
  isValidPrivateKey,
  publicKeyFromPrivateKey,
} from './public-key.js';
export {
  createOauth2OidcToken,
  type Oauth2OidcClaims,
  oidcKeyIdOf,
} from './sessions/oauth2-oidc-token.js';
export {
  createOtpVerificationToken,
  type OtpVerificationClaims,
  readOtpVerificationToken,
} from './sessions/otp-verification-token.js';
export {
  createSessionJwt,
  readSessionJwt,
  type SessionClaims,
  type SessionType,
} from './sessions/session-jwt.js';
export { type SessionNotarizer, softwareNotarizer } from './sessions/session-notarizer.js';
export { formatSignature, type SignatureResult } from './signature-format.js';
export {
  type ExtendedPrivateKey,
  type Slip10Curve,
  slip10ChildKey,
  slip10DerivePath,
  slip10MasterKey,
} from './slip10.js';
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
export {
  type Eip1559Fields,
  parseSignedEthereumTransaction,
  type SignedEthereumTransaction,
  unsignedEip1559Transaction,
} from './transactions/ethereum-send.js';
export {
  canSignTaproot,
  isSupportedTransactionType,
  type ParsedTransaction,
  parseTransaction,
  type SignTransactionRequest,
  SUPPORTED_TRANSACTION_TYPES,
  type SupportedTransactionType,
  signTransaction,
  type TaprootSigningVault,
  TRANSACTION_CURVES,
  type TransactionView,
} from './transactions/sign-transaction.js';
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
export {
  hasPlaceholderBlockhash,
  type SignedSolanaTransaction,
  SOLANA_MAX_TRANSACTION_BYTES,
  signedSolanaTransaction,
  solanaSendUnsignedTransaction,
} from './transactions/solana-send.js';
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
export {
  BIP39_SEED_LENGTH,
  deriveFromSealedSeedIn,
  deriveFromSeedPlaintext,
  isSeedPlaintextLength,
  keyPlaintext,
  mnemonicOfSeedPlaintext,
  seedPlaintext,
  signKeyPlaintextIn,
  signTaprootKeyPlaintextIn,
} from './vault-plaintext.js';
