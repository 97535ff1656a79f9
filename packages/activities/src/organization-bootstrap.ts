/**
 * Creating a root organization outside the activity path: the one step that cannot be a
 * stamped activity, because before it nobody holds a credential. `keyhold serve
 * --bootstrap-api-public-key` and embedding hosts use it.
 * @module
 */
import type { ApiKeyCurve } from '@keyhold/protocol';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { normalizeApiPublicKey } from './api-key-public-key.js';
import type { Clock } from './ports/clock.js';
import type { Ids } from './ports/ids.js';
import { type Store, StoreConflictError } from './ports/store.js';

/** The root organization to create, and the API key of its root user. */
export interface BootstrapInput {
  organizationName: string;
  rootUserName?: string;
  apiPublicKey: string;
  apiKeyCurve?: ApiKeyCurve;
  apiKeyName?: string;
}

/** The ids of the organization, its root user and their API key. */
export interface BootstrapResult {
  organizationId: string;
  userId: string;
  apiKeyId: string;
  /** False when an existing organization with this name and key was reused. */
  created: boolean;
}

/**
 * A root organization of the bootstrap's name already exists, and the bootstrap key is not
 * one of its API keys: bootstrapping again would hand the organization to another key.
 * @example
 * try { await keyhold.bootstrap({ organizationName: 'Acme', apiPublicKey }); }
 * catch (e) { if (e instanceof BootstrapConflictError) console.error(e.organizationName); }
 */
export class BootstrapConflictError extends Error {
  override name = 'BootstrapConflictError';
  constructor(readonly organizationName: string) {
    super(`organization "${organizationName}" already exists with other root credentials`);
  }
}

/**
 * Creates, once, a root organization whose root user (a quorum of one) holds the API key.
 * Called again with the same name and key it returns the existing organization.
 * @throws BootstrapConflictError when an organization of that name exists without that key
 * @throws KeyholdError INVALID_PUBLIC_KEY when the key is not a point of its curve
 */
export async function bootstrapOrganization(
  deps: { store: Store; ids: Ids; clock: Clock },
  input: BootstrapInput,
): Promise<BootstrapResult> {
  try {
    return await bootstrapOnce(deps, input);
  } catch (error) {
    // Another instance bootstrapped the same organization at the same moment: its id is
    // derived from the name and key, so our insert collided; read what it wrote.
    if (StoreConflictError.is(error)) return bootstrapOnce(deps, input);
    throw error;
  }
}

/**
 * The id of a bootstrap organization: derived from its name and root key, so instances racing
 * to bootstrap the same organization agree, and different deployments do not collide.
 */
export function bootstrapOrganizationId(organizationName: string, apiPublicKey: string): string {
  const h = sha256(
    new TextEncoder().encode(
      `keyhold/bootstrap-organization/v1:${apiPublicKey}:${organizationName}`,
    ),
  );
  h[6] = 0x40 | (h[6]! & 0x0f);
  h[8] = 0x80 | (h[8]! & 0x3f);
  const hex = bytesToHex(h.subarray(0, 16));
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

async function bootstrapOnce(
  deps: { store: Store; ids: Ids; clock: Clock },
  input: BootstrapInput,
): Promise<BootstrapResult> {
  const curve = input.apiKeyCurve ?? 'API_KEY_CURVE_P256';
  const publicKey = normalizeApiPublicKey(curve, input.apiPublicKey);
  return deps.store.transaction(async (tx) => {
    const existing = await tx.organizations.findRootByName(input.organizationName);
    if (existing) {
      const key = await tx.apiKeys.findByPublicKey(existing.organizationId, publicKey);
      if (!key) throw new BootstrapConflictError(input.organizationName);
      return {
        organizationId: existing.organizationId,
        userId: key.userId,
        apiKeyId: key.apiKeyId,
        created: false,
      };
    }
    const now = deps.clock.now();
    const organizationId = bootstrapOrganizationId(input.organizationName, publicKey);
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
