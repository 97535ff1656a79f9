/**
 * PKCS#11 values this adapter needs that pkcs11js (2.1.x, a PKCS#11 2.40 binding) does not
 * export, and the CKA_EC_PARAMS encodings of the three curves.
 *
 * The EdDSA values come from PKCS#11 3.0 (§2.3.6–2.3.7, "Edwards Elliptic curve"); SoftHSM
 * 2.6 implements them. Ed25519 domain parameters have two encodings in the wild: PKCS#11 3.0
 * names the curve with a PrintableString ("edwards25519"); PKCS#11 3.1 and RFC 8410 use the
 * OID id-Ed25519 (1.3.101.112). SoftHSM 2.6.1 accepts both; some HSMs accept only one, so key
 * generation tries them in order and lookups accept either.
 * @module
 */
import type { Curve } from '@keyhold/protocol';

/** CKM_EC_EDWARDS_KEY_PAIR_GEN (PKCS#11 3.0). */
export const CKM_EC_EDWARDS_KEY_PAIR_GEN = 0x1055;
/** CKM_EDDSA (PKCS#11 3.0): pure Ed25519 when given no parameters. */
export const CKM_EDDSA = 0x1057;
/** CKK_EC_EDWARDS (PKCS#11 3.0). */
export const CKK_EC_EDWARDS = 0x40;

/** DER OBJECT IDENTIFIER 1.2.840.10045.3.1.7 (prime256v1 / secp256r1). */
const P256_OID = '06082a8648ce3d030107';
/** DER OBJECT IDENTIFIER 1.3.132.0.10 (secp256k1). */
const SECP256K1_OID = '06052b8104000a';
/** DER PrintableString "edwards25519" (PKCS#11 3.0 curve name). */
const EDWARDS25519_NAME = '130c656477617264733235353139';
/** DER OBJECT IDENTIFIER 1.3.101.112 (id-Ed25519, RFC 8410). */
const ED25519_OID = '06032b6570';

/**
 * The accepted CKA_EC_PARAMS values of a curve, preferred first (the one key generation tries
 * first).
 * @example
 * ecParamsOf('CURVE_SECP256K1')[0]; // <Buffer 06 05 2b 81 04 00 0a>
 */
export function ecParamsOf(curve: Curve): readonly Buffer[] {
  switch (curve) {
    case 'CURVE_P256':
      return [Buffer.from(P256_OID, 'hex')];
    case 'CURVE_SECP256K1':
      return [Buffer.from(SECP256K1_OID, 'hex')];
    default:
      return [Buffer.from(EDWARDS25519_NAME, 'hex'), Buffer.from(ED25519_OID, 'hex')];
  }
}
