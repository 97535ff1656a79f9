/**
 * Spark (Bitcoin L2) addresses: bech32m of the protobuf `SparkAddress { identity_public_key = 1 }`
 * holding the 33-byte compressed secp256k1 identity key, which serializes to
 * `0x0a 0x21 ‖ K`. Human-readable prefix `spark` on mainnet and `sparkrt` on regtest
 * (docs.turnkey.com/networks/spark lists exactly these two formats and prefixes;
 * docs.spark.money "Spark Addresses"; @buildonspark/spark-sdk `encodeSparkAddress`). Older
 * Spark SDKs used the prefixes `sp`/`sprt` for the same payload; Turnkey's are the new ones.
 * Encoding: @scure/base bech32m.
 * @module
 */
import { bech32m } from '@scure/base';

export type SparkNetwork = 'MAINNET' | 'REGTEST';

/** The bech32m prefixes of the two Spark formats. */
export const SPARK_PREFIX: Readonly<Record<SparkNetwork, string>> = Object.freeze({
  MAINNET: 'spark',
  REGTEST: 'sparkrt',
});

/** Protobuf tag of field 1 (`identity_public_key`), wire type 2, and its length 33. */
const IDENTITY_KEY_FIELD = Uint8Array.of(0x0a, 0x21);

/**
 * The Spark address of a compressed secp256k1 identity key.
 * @example
 * sparkAddress('MAINNET', compressed); // 'spark1pgss…'
 */
export function sparkAddress(network: SparkNetwork, publicKey: Uint8Array): string {
  const payload = Uint8Array.of(...IDENTITY_KEY_FIELD, ...publicKey);
  return bech32m.encode(SPARK_PREFIX[network], bech32m.toWords(payload));
}
