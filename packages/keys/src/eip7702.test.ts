import type { Curve, HashFunction } from '@keyhold/protocol';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import fc from 'fast-check';
import { privateKeyToAccount } from 'viem/accounts';
import { hashAuthorization, recoverAuthorizationAddress, verifyAuthorization } from 'viem/utils';
import { describe, expect, it } from 'vitest';
import { parseEip7702Authorization, prepareEip7702Payload } from './eip7702.js';
import { formatSignature } from './signature-format.js';

const PRIVATE_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80' as const;
const account = privateKeyToAccount(PRIVATE_KEY);
const DELEGATE = '0x63c0c19a282a1B52b07dD5a65b58948A07DAE32B' as const;

const K1 = 'CURVE_SECP256K1';
const NO_OP = 'HASH_FUNCTION_NO_OP';

/** What @turnkey/viem's signAuthorization sends as the payload. */
const payloadOf = (authorization: { address: string; chainId: number; nonce: number }) =>
  JSON.stringify(authorization);

function sign(digest: Uint8Array) {
  const sig = secp256k1.sign(digest, hexToBytes(PRIVATE_KEY.slice(2)), {
    prehash: false,
    lowS: true,
    format: 'recovered',
  });
  return formatSignature({ r: sig.slice(1, 33), s: sig.slice(33), recovery: sig[0] as 0 | 1 });
}

describe('PAYLOAD_ENCODING_EIP7702_AUTHORIZATION', () => {
  it('hashes to viem hashAuthorization; the signature recovers to the account', async () => {
    const authorization = { address: DELEGATE, chainId: 1, nonce: 7 };
    const digest = prepareEip7702Payload({
      payload: payloadOf(authorization),
      hashFunction: NO_OP,
      curve: K1,
    });
    expect(`0x${bytesToHex(digest)}`).toBe(hashAuthorization(authorization));
    const { r, s, v } = sign(digest);
    // @turnkey/viem returns {address, chainId, nonce, r, s, v, yParity: v} with 0x added by the client.
    const signed = {
      ...authorization,
      r: `0x${r}` as const,
      s: `0x${s}` as const,
      yParity: Number(v),
    };
    expect(await recoverAuthorizationAddress({ authorization: signed })).toBe(account.address);
    expect(await verifyAuthorization({ address: account.address, authorization: signed })).toBe(
      true,
    );
    const reference = await account.signAuthorization(authorization);
    expect(signed).toMatchObject({ r: reference.r, s: reference.s, yParity: reference.yParity });
  });

  it('matches viem for random authorizations (property), chain id 0 included', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 20, maxLength: 20 }),
        fc.nat(2 ** 40),
        fc.nat(2 ** 40),
        (address, chainId, nonce) => {
          const authorization = { address: `0x${bytesToHex(address)}` as const, chainId, nonce };
          const digest = prepareEip7702Payload({
            payload: payloadOf(authorization),
            hashFunction: 'HASH_FUNCTION_NOT_APPLICABLE',
            curve: K1,
          });
          expect(`0x${bytesToHex(digest)}`).toBe(hashAuthorization(authorization));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('accepts decimal and hex strings for chainId and nonce, and gives policies the view', () => {
    const parsed = parseEip7702Authorization(
      JSON.stringify({ address: DELEGATE, chainId: '0x2105', nonce: '18446744073709551615' }),
    );
    expect(parsed.view).toEqual({
      address: DELEGATE.toLowerCase(),
      chain_id: 8453n,
      nonce: 2n ** 64n - 1n,
    });
  });

  function refusal(payload: string, hashFunction: string = NO_OP, curve: string = K1) {
    try {
      prepareEip7702Payload({
        payload,
        hashFunction: hashFunction as HashFunction,
        curve: curve as Curve,
      });
    } catch (error) {
      return error as { key: string; context: { reason?: string } };
    }
    throw new Error('expected a refusal');
  }

  const good = payloadOf({ address: DELEGATE, chainId: 1, nonce: 0 });

  it.each([
    ['HASH_FUNCTION_SHA256', K1, 'INVALID_HASH_FUNCTION'],
    ['HASH_FUNCTION_KECCAK256', K1, 'INVALID_HASH_FUNCTION'],
    [NO_OP, 'CURVE_P256', 'INVALID_CURVE'],
    [NO_OP, 'CURVE_ED25519', 'INVALID_CURVE'],
  ])('%s with %s → %s', (hashFunction, curve, key) => {
    expect(refusal(good, hashFunction, curve).key).toBe(key);
  });

  it.each([
    ['not JSON', '{address'],
    ['an array', '[]'],
    ['no nonce', JSON.stringify({ address: DELEGATE, chainId: 1 })],
    ['an extra member', JSON.stringify({ address: DELEGATE, chainId: 1, nonce: 0, yParity: 1 })],
    ['a short address', JSON.stringify({ address: '0x1234', chainId: 1, nonce: 0 })],
    [
      'a bad checksum',
      JSON.stringify({ address: DELEGATE.replace('B52', 'b52'), chainId: 1, nonce: 0 }),
    ],
    ['a negative chain id', JSON.stringify({ address: DELEGATE, chainId: -1, nonce: 0 })],
    ['a fractional nonce', JSON.stringify({ address: DELEGATE, chainId: 1, nonce: 1.5 })],
    [
      'a nonce of 2^64',
      JSON.stringify({ address: DELEGATE, chainId: 1, nonce: '18446744073709551616' }),
    ],
    ['a JSON number above 2^53', `{"address":"${DELEGATE}","chainId":1,"nonce":9007199254740993}`],
    ['a leading-zero decimal', JSON.stringify({ address: DELEGATE, chainId: '01', nonce: 0 })],
  ])('%s → INVALID_PAYLOAD', (_name, payload) => {
    expect(refusal(payload).key).toBe('INVALID_PAYLOAD');
  });
});
