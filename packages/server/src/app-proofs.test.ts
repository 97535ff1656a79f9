/**
 * Proofs, honestly (issue 15 item 5): `generateAppProofs` on an activity, sent by the published
 * `@turnkey/http` client, makes `list_app_proofs` (`getAppProofs`) answer a software proof —
 * the server's signer key over the activity's result — that `verifyKeyholdAppProof` of
 * `@keyhold/conformance` verifies offline with the published `signerPublicKey` alone, and
 * whose signature `@turnkey/crypto`'s `verifyAppProofSignature` accepts too. A tampered proof,
 * another key, or another activity's id do not verify. An activity awaiting consensus is
 * proven by the vote that completes it. The boot proof states the server's version and
 * published keys, signed, with no hardware attestation, and says so.
 */
import type { RunningServer } from '@keyhold/cli';
import {
  ProofVerificationError,
  verifyKeyholdAppProof,
  verifyKeyholdBootProof,
} from '@keyhold/conformance';
import { p256 } from '@noble/curves/nist.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { verifyAppProofSignature } from '@turnkey/crypto';
import type { TurnkeyClient } from '@turnkey/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  httpClient,
  rejection,
  type SdkClient,
  sdkClient,
  startTurnkeyServer,
} from './__fixtures__/turnkey-server.js';
import { generateApiKeyPair } from './api-key-signer.js';
import { serverVersion } from './boot-proof.js';

const ETH = {
  curve: 'CURVE_SECP256K1',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: "m/44'/60'/0'/0/0",
  addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
} as const;

let server: RunningServer;
let http: TurnkeyClient;
let sdk: SdkClient;
let organizationId: string;
let signerPublicKey: string;

beforeAll(async () => {
  const t = await startTurnkeyServer();
  ({ server, organizationId, client: sdk } = t);
  http = httpClient(server.url, t.key);
  signerPublicKey = (
    (await (await fetch(`${server.url}/keyhold/v1/public_keys`)).json()) as {
      signerPublicKey: string;
    }
  ).signerPublicKey;
});
afterAll(() => server.close());

const createWallet = (walletName: string, generateAppProofs?: boolean) =>
  http.createWallet({
    type: 'ACTIVITY_TYPE_CREATE_WALLET',
    timestampMs: String(Date.now()),
    organizationId,
    parameters: { walletName, accounts: [ETH] },
    ...(generateAppProofs !== undefined ? { generateAppProofs } : {}),
  });

describe('app proofs', () => {
  it('generateAppProofs: a software proof of the result, verified offline with the published key', async () => {
    const { activity } = await createWallet('proven', true);
    expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const { appProofs } = await http.getAppProofs({ organizationId, activityId: activity.id });
    expect(appProofs).toHaveLength(1);
    const proof = appProofs[0]!;
    const claims = verifyKeyholdAppProof(proof, {
      signerPublicKey,
      activityId: activity.id,
      result: activity.result as Record<string, unknown>,
    });
    expect(claims).toMatchObject({
      type: 'KEYHOLD_SOFTWARE_APP_PROOF',
      organizationId,
      activityType: 'ACTIVITY_TYPE_CREATE_WALLET',
      fingerprint: activity.fingerprint,
    });
    expect(claims.label).toMatch(/software proof.*not a hardware attestation/);
    // The published client's own signature check accepts it (its scheme and key layout).
    expect(() => verifyAppProofSignature(proof)).not.toThrow();
    // The submission's answer carried the same proof.
    expect((activity as { appProofs?: unknown[] }).appProofs).toEqual(appProofs);
  });

  it('a tampered payload, another key or another activity does not verify', async () => {
    const { activity } = await createWallet('tamper', true);
    const [proof] = (await http.getAppProofs({ organizationId, activityId: activity.id }))
      .appProofs;
    const payload = JSON.parse(proof!.proofPayload);
    const tampered = {
      ...proof!,
      proofPayload: JSON.stringify({
        ...payload,
        result: { createWalletResult: { walletId: 'x' } },
      }),
    };
    expect(() => verifyKeyholdAppProof(tampered, { signerPublicKey })).toThrow(
      ProofVerificationError,
    );
    expect(() => verifyAppProofSignature(tampered)).toThrow();
    const otherKey = bytesToHex(p256.getPublicKey(p256.utils.randomSecretKey(), false));
    expect(() => verifyKeyholdAppProof(proof!, { signerPublicKey: otherKey })).toThrow(
      /signer key/,
    );
    const { activity: other } = await createWallet('other', false);
    expect(() => verifyKeyholdAppProof(proof!, { signerPublicKey, activityId: other.id })).toThrow(
      /about activity/,
    );
  });

  it('without generateAppProofs there is no proof; an unknown activity is not found', async () => {
    const { activity } = await createWallet('unproven');
    expect(
      (await http.getAppProofs({ organizationId, activityId: activity.id })).appProofs,
    ).toEqual([]);
    const missing = await rejection(
      http.getAppProofs({ organizationId, activityId: '00000000-0000-4000-8000-000000000000' }),
    );
    expect(missing.message).toContain('activity not found');
  });

  it('an activity awaiting consensus is proven by the vote that completes it', async () => {
    const t = await startTurnkeyServer();
    try {
      const bobKey = generateApiKeyPair();
      const { userIds } = await t.embedded.run<{ userIds: string[] }>(
        'ACTIVITY_TYPE_CREATE_API_ONLY_USERS',
        {
          apiOnlyUsers: [
            {
              userName: 'bob',
              userTags: [],
              apiKeys: [{ apiKeyName: 'bob', publicKey: bobKey.publicKey }],
            },
          ],
        },
      );
      await t.embedded.run('ACTIVITY_TYPE_UPDATE_ROOT_QUORUM', {
        threshold: 2,
        userIds: [t.userId, userIds[0]],
      });
      const alice = httpClient(t.server.url, t.key);
      const { activity: waiting } = await alice.createWallet({
        type: 'ACTIVITY_TYPE_CREATE_WALLET',
        timestampMs: String(Date.now()),
        organizationId: t.organizationId,
        parameters: { walletName: 'quorum', accounts: [ETH] },
        generateAppProofs: true,
      });
      expect(waiting.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
      const query = { organizationId: t.organizationId, activityId: waiting.id };
      expect((await alice.getAppProofs(query)).appProofs).toEqual([]);
      const approved = await sdkClient(t.server.url, t.organizationId, bobKey).approveActivity({
        fingerprint: waiting.fingerprint,
      });
      expect(approved.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
      const { appProofs } = await alice.getAppProofs(query);
      expect(appProofs).toHaveLength(1);
      verifyKeyholdAppProof(appProofs[0]!, {
        signerPublicKey: t.server.keyhold.signerPublicKey,
        activityId: waiting.id,
        result: approved.activity.result as Record<string, unknown>,
      });
    } finally {
      await t.server.close();
    }
  });
});

describe('boot proofs', () => {
  it('states the version and published keys, signed; labelled a software statement', async () => {
    const { bootProof } = await sdk.getLatestBootProof({ organizationId, appName: 'signer' });
    expect(bootProof.awsAttestationDocB64).toBe('');
    expect(bootProof.deploymentLabel).toBe('keyhold-self-hosted-software-statement');
    const statement = verifyKeyholdBootProof(bootProof, { signerPublicKey });
    expect(statement).toMatchObject({ software: 'keyhold', version: serverVersion() });
    expect(statement.label).toMatch(/not a hardware attestation/);
    const published = (await (
      await fetch(`${server.url}/keyhold/v1/public_keys`)
    ).json()) as Record<string, unknown>;
    for (const [name, key] of Object.entries(statement.publicKeys))
      expect(published[name]).toBe(key);
    // By its key: the full ephemeral key or the signer key alone; another key is not found.
    for (const ephemeralKey of [bootProof.ephemeralPublicKeyHex, signerPublicKey]) {
      expect((await sdk.getBootProof({ organizationId, ephemeralKey })).bootProof).toEqual(
        bootProof,
      );
    }
    const other = await rejection(sdk.getBootProof({ organizationId, ephemeralKey: '04ab' }));
    expect(other.message).toContain('boot proof not found');
    // Another signer key's statement does not verify.
    expect(() =>
      verifyKeyholdBootProof(bootProof, {
        signerPublicKey: bytesToHex(p256.getPublicKey(p256.utils.randomSecretKey(), false)),
      }),
    ).toThrow(ProofVerificationError);
  });
});
