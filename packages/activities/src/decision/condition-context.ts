/**
 * The condition context of an activity (wire-compat §5): `activity {type, kind, resource,
 * action, params}` and, where the activity targets them, `wallet`, `wallets`,
 * `wallet_account` and `private_key`. What the request does not carry is left out, so a policy
 * that reads it gets a `missing` error (never a default value).
 * @module
 */

import { parseTransaction } from '@keyhold/keys';
import type {
  ConditionContext,
  PolicyActivity,
  PolicyPrivateKey,
  PolicyWallet,
} from '@keyhold/policy-engine';
import type { ActivityDefinition, TransactionType } from '@keyhold/protocol';
import { findSigningKey } from '../handlers/resolve-signer.js';
import type { StoreTransaction } from '../ports/store.js';
import type { PrivateKeyRecord, WalletRecord } from '../records.js';

type Parameters = Readonly<Record<string, unknown>>;

/**
 * `activity.params`: only the parameters wire-compat §5 documents for the activity kind, under
 * their snake_case names. Any other field is a MissingField error when a policy reads it.
 */
export function policyParamsOf(kind: string, p: Parameters): Record<string, unknown> {
  const pick = (entries: [string, unknown][]) =>
    Object.fromEntries(entries.filter(([, v]) => v !== undefined));
  switch (kind) {
    case 'SIGN_RAW_PAYLOAD':
    case 'SIGN_RAW_PAYLOADS':
      return pick([
        ['hash_function', p.hashFunction],
        ['encoding', p.encoding],
      ]);
    case 'DELETE_USERS':
      return pick([['user_ids', p.userIds]]);
    case 'CREATE_API_KEYS':
      return pick([['user_id', p.userId]]);
    case 'DELETE_API_KEYS':
      return pick([
        ['user_id', p.userId],
        ['api_key_ids', p.apiKeyIds],
      ]);
    case 'SIGN_TRANSACTION':
      return pick([['type', p.type]]);
    case 'UPDATE_WALLET':
      return pick([['wallet_id', p.walletId]]);
    case 'UPDATE_WEBHOOK_ENDPOINT':
    case 'DELETE_WEBHOOK_ENDPOINT':
      return pick([['endpoint_id', p.endpointId]]);
    case 'EXPORT_WALLET':
    case 'EXPORT_PRIVATE_KEY':
    case 'EXPORT_WALLET_ACCOUNT':
      return pick([['target_public_key', p.targetPublicKey]]);
    default:
      return {};
  }
}

export function policyWallet(wallet: WalletRecord): PolicyWallet {
  return {
    id: wallet.walletId,
    imported: wallet.imported,
    exported: wallet.exported,
    label: wallet.walletName,
  };
}

export function policyPrivateKey(key: PrivateKeyRecord): PolicyPrivateKey {
  return {
    id: key.privateKeyId,
    tags: [...key.privateKeyTags],
    imported: key.imported,
    exported: key.exported,
    label: key.privateKeyName,
  };
}

/** The `activity` keyword of an activity. */
export function policyActivity(definition: ActivityDefinition, p: Parameters): PolicyActivity {
  return {
    type: definition.type,
    kind: definition.kind,
    resource: definition.resource,
    action: definition.action,
    params: policyParamsOf(definition.kind, p),
  };
}

const CHAIN_KEYWORD = {
  ethereum: 'eth',
  solana: 'solana',
  tron: 'tron',
  bitcoin: 'bitcoin',
} as const;

/**
 * `eth.tx`, `solana.tx`, `tron.tx` or `bitcoin.tx`: the parsed view of the unsigned
 * transaction. An undecodable one was already refused, so a parse failure here leaves the
 * keyword out (policies reading it get a `missing` error).
 */
function addTransaction(context: Record<string, unknown>, parameters: Parameters): void {
  try {
    const parsed = parseTransaction(
      parameters.type as TransactionType,
      String(parameters.unsignedTransaction ?? ''),
    );
    context[CHAIN_KEYWORD[parsed.chain]] = { tx: parsed.view };
  } catch {
    // left out on purpose
  }
}

/** Builds the condition keywords of an activity from its parameters and the organization's records. */
export async function conditionContextOf(
  tx: StoreTransaction,
  organizationId: string,
  definition: ActivityDefinition,
  parameters: Parameters,
): Promise<ConditionContext> {
  const context: Record<string, unknown> = { activity: policyActivity(definition, parameters) };
  const addWallet = async (walletId: unknown) => {
    if (typeof walletId !== 'string') return;
    const wallet = await tx.wallets.get(organizationId, walletId.toLowerCase());
    if (!wallet) return;
    context.wallet = policyWallet(wallet);
    context.wallets = [context.wallet];
  };
  const addSigningKey = async (signWith: unknown) => {
    if (typeof signWith !== 'string') return;
    const found = await findSigningKey(tx, organizationId, signWith);
    if (found?.kind === 'account') {
      context.wallet_account = { address: found.account.address };
      await addWallet(found.account.walletId);
    } else if (found?.kind === 'privateKey') {
      context.private_key = policyPrivateKey(found.privateKey);
    }
  };
  switch (definition.kind) {
    case 'SIGN_RAW_PAYLOAD':
    case 'SIGN_RAW_PAYLOADS':
    case 'SIGN_TRANSACTION':
      await addSigningKey(parameters.signWith ?? parameters.privateKeyId);
      addTransaction(context, parameters);
      break;
    case 'EXPORT_PRIVATE_KEY':
      await addSigningKey(parameters.privateKeyId);
      break;
    case 'EXPORT_WALLET_ACCOUNT':
      await addSigningKey(parameters.address);
      break;
    case 'CREATE_WALLET_ACCOUNTS':
    case 'UPDATE_WALLET':
    case 'EXPORT_WALLET':
      await addWallet(parameters.walletId);
      break;
    default:
      break;
  }
  return context as ConditionContext;
}
