/**
 * A fresh sub-organization of the target's organization to run the suite in, so that the
 * wallets, keys, users, policies and activities the properties create never land in the
 * organization the vendor gave: only the one CREATE_SUB_ORGANIZATION activity does.
 * @module
 */
import { p256 } from '@noble/curves/nist.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { ConformanceClient } from './client.js';
import type { ConformanceTarget } from './target.js';

/**
 * Creates a sub-organization (one root user with a new P-256 API key, threshold 1) through
 * `target` and returns a target acting as that root user in it, over the same transport.
 * @example
 * const suite = await subOrganizationTarget(httpTarget({ baseUrl, organizationId, apiPrivateKey }));
 * await runConformanceAgainst(suite, { log: console.log });
 */
export async function subOrganizationTarget(
  target: ConformanceTarget,
  name = `keyhold-conformance-${new Date().toISOString()}`,
): Promise<ConformanceTarget> {
  const privateKey = p256.utils.randomSecretKey();
  const apiPublicKey = bytesToHex(p256.getPublicKey(privateKey, true));
  const created = await new ConformanceClient(target).execute(
    'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7',
    'create_sub_organization',
    {
      subOrganizationName: name,
      rootUsers: [
        {
          userName: 'conformance',
          apiKeys: [
            { apiKeyName: 'conformance', publicKey: apiPublicKey, curveType: 'API_KEY_CURVE_P256' },
          ],
          authenticators: [],
          oauthProviders: [],
        },
      ],
      rootQuorumThreshold: 1,
    },
    'createSubOrganizationResultV7',
  );
  return {
    name: target.name,
    organizationId: created.subOrganizationId as string,
    apiPrivateKey: bytesToHex(privateKey),
    apiPublicKey,
    post: target.post.bind(target),
  };
}
