/**
 * Creating a root organization outside the activity path: the one step that cannot be a
 * stamped activity, because before it nobody holds a credential. `keyhold serve
 * --bootstrap-api-public-key` and embedding hosts use it.
 * @module
 */
import type { ApiKeyCurve } from '@keyhold/protocol';
import { normalizeApiPublicKey } from './api-key-public-key.js';
import type { Clock } from './ports/clock.js';
import type { Ids } from './ports/ids.js';
import type { Store } from './ports/store.js';

export interface BootstrapInput {
  organizationName: string;
  rootUserName?: string;
  apiPublicKey: string;
  apiKeyCurve?: ApiKeyCurve;
  apiKeyName?: string;
}

export interface BootstrapResult {
  organizationId: string;
  userId: string;
  apiKeyId: string;
  /** False when an existing organization with this name and key was reused. */
  created: boolean;
}

/**
 * Creates, once, a root organization whose root user (a quorum of one) holds the API key.
 * Called again with the same name and key it returns the existing organization.
 * @throws Error when an organization of that name exists without that key
 */
export async function bootstrapOrganization(
  deps: { store: Store; ids: Ids; clock: Clock },
  input: BootstrapInput,
): Promise<BootstrapResult> {
  const curve = input.apiKeyCurve ?? 'API_KEY_CURVE_P256';
  const publicKey = normalizeApiPublicKey(curve, input.apiPublicKey);
  return deps.store.transaction(async (tx) => {
    const existing = await tx.organizations.findRootByName(input.organizationName);
    if (existing) {
      const key = await tx.apiKeys.findByPublicKey(existing.organizationId, publicKey);
      if (!key) {
        throw new Error(
          `organization "${input.organizationName}" already exists with other root credentials`,
        );
      }
      return {
        organizationId: existing.organizationId,
        userId: key.userId,
        apiKeyId: key.apiKeyId,
        created: false,
      };
    }
    const now = deps.clock.now();
    const organizationId = deps.ids.uuid();
    const userId = deps.ids.uuid();
    const apiKeyId = deps.ids.uuid();
    await tx.organizations.insert({
      organizationId,
      name: input.organizationName,
      rootQuorum: { threshold: 1, userIds: [userId] },
      createdAt: now,
      updatedAt: now,
    });
    await tx.users.insert({
      organizationId,
      userId,
      userName: input.rootUserName ?? 'root',
      userTags: [],
      createdAt: now,
      updatedAt: now,
    });
    await tx.apiKeys.insert({
      organizationId,
      userId,
      apiKeyId,
      apiKeyName: input.apiKeyName ?? 'bootstrap',
      publicKey,
      curve,
      createdAt: now,
      updatedAt: now,
    });
    return { organizationId, userId, apiKeyId, created: true };
  });
}
