import { p256 } from '@noble/curves/nist.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { verifySessionJwtSignature } from '@turnkey/crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSessionJwt, readSessionJwt, type SessionClaims } from './session-jwt.js';
import { softwareNotarizer } from './session-notarizer.js';

const notarizer = softwareNotarizer(p256.utils.randomSecretKey());

const claimsArbitrary = fc.record({
  exp: fc.integer({ min: 1, max: 2 ** 40 }),
  publicKey: fc
    .uint8Array({ minLength: 32, maxLength: 32 })
    .filter((k) => p256.utils.isValidSecretKey(k))
    .map((k) => bytesToHex(p256.getPublicKey(k, true))),
  sessionType: fc.constantFrom('SESSION_TYPE_READ_WRITE', 'SESSION_TYPE_READ_ONLY' as const),
  userId: fc.uuid(),
  organizationId: fc.uuid(),
}) as fc.Arbitrary<SessionClaims>;

/** What `@turnkey/core`'s parseSession does: a bare atob of the payload, then JSON.parse. */
const parseLikeCore = (jwt: string) => JSON.parse(atob(jwt.split('.')[1]!));

describe('session JWT', () => {
  it('@turnkey/crypto verifySessionJwtSignature accepts it with the notarizer key', async () => {
    await fc.assert(
      fc.asyncProperty(claimsArbitrary, async (claims) => {
        const jwt = await createSessionJwt(claims, notarizer);
        expect(await verifySessionJwtSignature(jwt, notarizer.publicKey)).toBe(true);
      }),
      { numRuns: 25 },
    );
  });

  it('another notarizer key does not verify it', async () => {
    const [claims] = fc.sample(claimsArbitrary, 1);
    const jwt = await createSessionJwt(claims!, notarizer);
    const other = softwareNotarizer(p256.utils.randomSecretKey());
    expect(await verifySessionJwtSignature(jwt, other.publicKey)).toBe(false);
    expect(readSessionJwt(jwt, other.publicKey)).toBeUndefined();
  });

  it('has the wire header, claims in seconds, and a payload atob() decodes', async () => {
    await fc.assert(
      fc.asyncProperty(claimsArbitrary, async (claims) => {
        const jwt = await createSessionJwt(claims, notarizer);
        expect(JSON.parse(atob(jwt.split('.')[0]!))).toEqual({ alg: 'ES256', typ: 'JWT' });
        expect(jwt.split('.')[1]).not.toMatch(/[-_=]/);
        expect(parseLikeCore(jwt)).toEqual({
          exp: claims.exp,
          public_key: claims.publicKey,
          session_type: claims.sessionType,
          user_id: claims.userId,
          organization_id: claims.organizationId,
        });
        expect(readSessionJwt(jwt, notarizer.publicKey)).toEqual(claims);
      }),
      { numRuns: 50 },
    );
  });

  it('readSessionJwt refuses any changed character of payload or signature', async () => {
    const [claims] = fc.sample(claimsArbitrary, 1);
    const jwt = await createSessionJwt(claims!, notarizer);
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: jwt.indexOf('.') + 1, max: jwt.length - 1 }),
        fc.constantFrom(...'ABCDEFabcdef0123456789'),
        async (at, replacement) => {
          fc.pre(jwt[at] !== '.' && jwt[at] !== replacement);
          const changed = `${jwt.slice(0, at)}${replacement}${jwt.slice(at + 1)}`;
          const parsed = readSessionJwt(changed, notarizer.publicKey);
          // The last base64url character of the signature carries unused bits.
          if (parsed)
            expect(Buffer.from(changed.split('.')[2]!, 'base64url')).toEqual(
              Buffer.from(jwt.split('.')[2]!, 'base64url'),
            );
          else expect(parsed).toBeUndefined();
        },
      ),
      { numRuns: 100 },
    );
  });

  it('the notarizer signs 32-byte digests only', async () => {
    await expect(notarizer.signDigest(new Uint8Array(31))).rejects.toThrow(TypeError);
    expect(() => softwareNotarizer(new Uint8Array(32))).toThrow(TypeError);
  });
});
