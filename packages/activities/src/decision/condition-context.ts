/**
 * The condition context of an activity (wire-compat §5): `activity {type, kind, resource,
 * action, params}` and, where the activity targets them, `wallet`, `wallets`,
 * `wallet_account` and `private_key`; the parsed transaction (`eth.tx`, `solana.tx`, `tron.tx`,
 * `bitcoin.tx`) of SIGN_TRANSACTION (and `solana.tx` of SOL_SEND_TRANSACTION), with the decoded contract call in `eth.tx` when the
 * organization uploaded the contract's ABI (`contract-calls.ts`); `eth.eip_712` and `eth.eip_7702_authorization` of raw
 * payloads in those encodings. What the request does not carry is left out, so a policy that
 * reads it gets a `missing` error (never a default value).
 *
 * One activity, one context: when an activity names several targets a singular keyword would
 * describe one of (several distinct payloads of SIGN_RAW_PAYLOADS, several private keys of
 * DELETE_PRIVATE_KEYS, several wallets of DELETE_WALLETS), the keyword is the LIST of them.
 * The engine reads a list where it checked a struct as a `type` error, so the policies that read
 * it fail closed: a DENY denies, an ALLOW grants nothing. (`wallets` is the list keyword that
 * serves such activities.)
 * @module
 */

import {
  deriveAddress,
  parseEip7702Authorization,
  parseSignedEthereumTransaction,
  parseTypedData,
  solanaSendUnsignedTransaction,
} from '@keyhold/keys';
import type {
  ConditionContext,
  PolicyActivity,
  PolicyPrivateKey,
  PolicyWallet,
} from '@keyhold/policy-engine';
import type { ActivityDefinition, Curve, TransactionType } from '@keyhold/protocol';
import { hexToBytes } from '@noble/hashes/utils.js';
import type { ActivityScope } from '../activity-scope.js';
import type { PrivateKeyRecord, WalletAccountRecord, WalletRecord } from '../records.js';
import { decodedContractCall, withDecodedInstructions } from './contract-calls.js';

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
    case 'ETH_SEND_TRANSACTION':
      return pick([
        ['caip2', p.caip2],
        ['sponsor', p.sponsor],
      ]);
    case 'ETH_SEND_RAW_TRANSACTION':
      return pick([['caip2', p.caip2]]);
    case 'SOL_SEND_TRANSACTION':
      return pick([
        ['caip2', p.caip2],
        ['sponsor', p.sponsor],
      ]);
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

/** One target, or the list of several (which fails closed: see the module comment). */
function oneOrList<T>(items: readonly T[]): T | readonly T[] | undefined {
  if (items.length === 0) return undefined;
  return items.length === 1 ? items[0] : items;
}

/** The Ethereum address (lower-case) of a secp256k1 public key: `eth.tx.from`. */
function ethereumAddressOf(curve: Curve, publicKey: string): string | undefined {
  if (curve !== 'CURVE_SECP256K1') return undefined;
  try {
    return deriveAddress('ADDRESS_FORMAT_ETHEREUM', curve, hexToBytes(publicKey)).toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * `eth.tx` (with `from`, the signer's address), `solana.tx`, `tron.tx` or `bitcoin.tx`: the
 * parsed view of the unsigned transaction. An undecodable one is refused by the handler, so a
 * parse failure here leaves the keyword out (policies reading it get a `missing` error).
 */
async function addTransaction(
  scope: ActivityScope,
  context: Record<string, unknown>,
  parameters: Parameters,
  from: string | undefined,
): Promise<void> {
  let parsed: ReturnType<ActivityScope['transaction']>;
  try {
    parsed = scope.transaction(
      parameters.type as TransactionType,
      String(parameters.unsignedTransaction ?? ''),
    );
  } catch {
    return; // left out on purpose
  }
  if (parsed.chain === 'solana') {
    // Decoded instructions, for the programs whose IDL the organization uploaded.
    context.solana = {
      tx: await withDecodedInstructions(scope.tx, scope.organizationId, parsed.view),
    };
    return;
  }
  if (parsed.chain !== 'ethereum') {
    context[CHAIN_KEYWORD[parsed.chain]] = { tx: parsed.view };
    return;
  }
  // The decoded call, when the organization uploaded the ABI of the contract called.
  const call = await decodedContractCall(
    scope.tx,
    scope.organizationId,
    parsed.view.to,
    parsed.view.data,
  );
  context.eth = { tx: { ...parsed.view, ...(from !== undefined ? { from } : {}), ...call } };
}

/**
 * `eth.tx` of ETH_SEND_TRANSACTION: the intent's members, as SIGN_TRANSACTION's view names
 * them (`type` eip1559, `chain_id` from `caip2`). What the intent leaves to the chain (nonce,
 * gas, fees) is absent, so a policy reading it gets a `missing` error.
 */
function sendTransactionView(parameters: Parameters, from: string | undefined) {
  const big = (value: unknown) =>
    typeof value === 'string' && value !== '' ? BigInt(value) : undefined;
  // V2 names its one call in `calls` (several are refused before the decision).
  const calls = Array.isArray(parameters.calls) ? (parameters.calls as Parameters[]) : undefined;
  const call = calls?.length === 1 ? calls[0]! : parameters;
  const data = typeof call.data === 'string' && call.data !== '' ? call.data : '0x';
  const view: Record<string, unknown> = {
    type: 'eip1559',
    chain_id: BigInt(String(parameters.caip2 ?? '').replace(/^eip155:/, '') || '0'),
    to: String(call.to ?? '').toLowerCase(),
    value: big(call.value) ?? 0n,
    data: (data.startsWith('0x') ? data : `0x${data}`).toLowerCase(),
    from: from ?? String(parameters.from ?? '').toLowerCase(),
  };
  const optional = {
    nonce: big(parameters.nonce),
    gas: big(parameters.gasLimit),
    max_fee_per_gas: big(parameters.maxFeePerGas),
    max_priority_fee_per_gas: big(parameters.maxPriorityFeePerGas),
  };
  for (const [key, value] of Object.entries(optional)) if (value !== undefined) view[key] = value;
  return view;
}

/** `eth.tx` of ETH_SEND_RAW_TRANSACTION: the signed transaction, `from` recovered from it. */
function addSignedTransaction(context: Record<string, unknown>, parameters: Parameters): void {
  try {
    context.eth = { tx: parseSignedEthereumTransaction(String(parameters.signedTransaction)).view };
  } catch {
    // refused by the handler's precheck
  }
}

/**
 * The unsigned transaction of SOL_SEND_TRANSACTION as SIGN_TRANSACTION's hex (V1 base64, V2
 * hex), the intent's `recentBlockhash` in it; '' when it does not decode (refused by the
 * handler's precheck, so `solana.tx` is left out).
 */
function solSendUnsignedTransactionOf(parameters: Parameters): string {
  try {
    return solanaSendUnsignedTransaction({
      unsignedTransaction: String(parameters.unsignedTransaction ?? ''),
      encoding: Array.isArray(parameters.signWiths) ? 'hex' : 'base64',
      ...(typeof parameters.recentBlockhash === 'string'
        ? { recentBlockhash: parameters.recentBlockhash }
        : {}),
    });
  } catch {
    return '';
  }
}

const PAYLOAD_KEYWORD = {
  PAYLOAD_ENCODING_EIP712: ['eip_712', (payload: string) => parseTypedData(payload).view],
  PAYLOAD_ENCODING_EIP7702_AUTHORIZATION: [
    'eip_7702_authorization',
    (payload: string) => parseEip7702Authorization(payload).view,
  ],
} as const;

/**
 * `eth.eip_712` / `eth.eip_7702_authorization` of SIGN_RAW_PAYLOAD(S) in those encodings. A
 * batch whose payloads are all the same text has that payload's view; distinct payloads make
 * the list of their views (fail closed). A payload that does not parse is refused by the
 * handler before anything is signed; alone it leaves the keyword out, in a batch it is null.
 */
function addPayloads(context: Record<string, unknown>, parameters: Parameters): void {
  const entry = PAYLOAD_KEYWORD[parameters.encoding as keyof typeof PAYLOAD_KEYWORD];
  if (!entry) return;
  const [keyword, viewOf] = entry;
  const payloads = Array.isArray(parameters.payloads)
    ? (parameters.payloads as unknown[])
    : [parameters.payload];
  const views = [...new Set(payloads)].map((payload) => {
    try {
      return viewOf(payload as string);
    } catch {
      return null;
    }
  });
  const value = views.length === 1 ? views[0] : views;
  if (value === null || value === undefined) return;
  context.eth = { ...(context.eth as object | undefined), [keyword]: value };
}

/** Builds the condition keywords of an activity from its parameters and the organization's records. */
export async function conditionContextOf(
  scope: ActivityScope,
  definition: ActivityDefinition,
  parameters: Parameters,
): Promise<ConditionContext> {
  const { tx, organizationId } = scope;
  const context: Record<string, unknown> = { activity: policyActivity(definition, parameters) };
  /** Distinct ids (lower-case: one record named twice is still one target). */
  const ids = (value: unknown): string[] =>
    Array.isArray(value)
      ? [...new Set(value.filter((v) => typeof v === 'string').map((v) => v.toLowerCase()))]
      : [];
  const addWallets = async (walletIds: readonly string[]) => {
    const wallets: PolicyWallet[] = [];
    for (const id of walletIds) {
      const wallet = await tx.wallets.get(organizationId, id);
      if (wallet) wallets.push(policyWallet(wallet));
    }
    if (wallets.length === 0) return;
    context.wallet = oneOrList(wallets);
    context.wallets = wallets;
  };
  const addPrivateKeys = async (privateKeyIds: readonly string[]) => {
    const keys: PrivateKeyRecord[] = [];
    for (const id of privateKeyIds) {
      const key = await tx.privateKeys.get(organizationId, id);
      if (key) keys.push(key);
    }
    const value = oneOrList(keys.map(policyPrivateKey));
    if (value) context.private_key = value;
  };
  const addAccounts = async (accounts: readonly WalletAccountRecord[]) => {
    const value = oneOrList(accounts.map((a) => ({ address: a.address })));
    if (!value) return;
    context.wallet_account = value;
    await addWallets([...new Set(accounts.map((a) => a.walletId))]);
  };
  /** The signer's records; returns its Ethereum address (for `eth.tx.from`). */
  const addSigningKey = async (signWith: unknown): Promise<string | undefined> => {
    if (typeof signWith !== 'string') return undefined;
    const found = await scope.signingKey(signWith);
    if (found?.kind === 'account') {
      await addAccounts([found.account]);
      return ethereumAddressOf(found.account.curve, found.account.publicKey);
    }
    if (found?.kind === 'privateKey') {
      context.private_key = policyPrivateKey(found.privateKey);
      return ethereumAddressOf(found.privateKey.curve, found.privateKey.publicKey);
    }
    return undefined;
  };
  /** Several signers' records: wallet accounts (and their wallets) and private keys, as lists. */
  const addSigningKeys = async (signWiths: readonly unknown[]) => {
    const accounts: WalletAccountRecord[] = [];
    const keys: PrivateKeyRecord[] = [];
    for (const signWith of signWiths) {
      const found = typeof signWith === 'string' ? await scope.signingKey(signWith) : undefined;
      if (found?.kind === 'account') accounts.push(found.account);
      if (found?.kind === 'privateKey') keys.push(found.privateKey);
    }
    await addAccounts(accounts);
    const value = oneOrList(keys.map(policyPrivateKey));
    if (value) context.private_key = value;
  };
  switch (definition.kind) {
    case 'SIGN_RAW_PAYLOAD':
    case 'SIGN_RAW_PAYLOADS':
      await addSigningKey(parameters.signWith ?? parameters.privateKeyId);
      addPayloads(context, parameters);
      break;
    case 'SIGN_TRANSACTION':
      await addTransaction(
        scope,
        context,
        parameters,
        await addSigningKey(parameters.signWith ?? parameters.privateKeyId),
      );
      break;
    case 'ETH_SEND_TRANSACTION': {
      const from = await addSigningKey(parameters.from);
      context.eth = { tx: sendTransactionView(parameters, from) };
      break;
    }
    case 'ETH_SEND_RAW_TRANSACTION':
      addSignedTransaction(context, parameters);
      break;
    case 'SOL_SEND_TRANSACTION': {
      // V2 names several signers: their records as lists (fail closed), like several targets.
      const signWiths = Array.isArray(parameters.signWiths)
        ? [...new Set(parameters.signWiths as unknown[])]
        : [parameters.signWith];
      if (signWiths.length === 1) await addSigningKey(signWiths[0]);
      else await addSigningKeys(signWiths);
      await addTransaction(
        scope,
        context,
        {
          type: 'TRANSACTION_TYPE_SOLANA',
          unsignedTransaction: solSendUnsignedTransactionOf(parameters),
        },
        undefined,
      );
      break;
    }
    case 'EXPORT_PRIVATE_KEY':
    case 'DISABLE_PRIVATE_KEY':
      await addPrivateKeys(ids([parameters.privateKeyId]));
      break;
    case 'DELETE_PRIVATE_KEYS':
      await addPrivateKeys(ids(parameters.privateKeyIds));
      break;
    case 'EXPORT_WALLET_ACCOUNT':
      await addSigningKey(parameters.address);
      break;
    case 'DELETE_WALLET_ACCOUNTS': {
      const wanted = new Set(ids(parameters.walletAccountIds));
      const accounts = await tx.walletAccounts.list(organizationId);
      await addAccounts(accounts.filter((a) => wanted.has(a.walletAccountId)));
      break;
    }
    case 'CREATE_WALLET_ACCOUNTS':
    case 'UPDATE_WALLET':
    case 'EXPORT_WALLET':
      await addWallets(ids([parameters.walletId]));
      break;
    case 'DELETE_WALLETS':
      await addWallets(ids(parameters.walletIds));
      break;
    default:
      break;
  }
  return context as ConditionContext;
}
