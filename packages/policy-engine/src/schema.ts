/**
 * The keyword schema: which keywords each field may use and their types. `TURNKEY_SCHEMA` is the
 * language of wire-compat §5 (docs `features/policies/language.mdx`); tests use smaller schemas.
 */
import {
  ANY,
  BOOL,
  INT,
  listOf,
  mapOf,
  namespace,
  STRING,
  struct,
  TIMESTAMP,
  type Type,
} from './types.js';

/** Root keywords per field. In the context, condition roots are read from `context.condition`,
 *  consensus roots from `context.consensus`, and the time root `time.now` from `context.now`. */
export interface KeywordSchema {
  readonly condition: Readonly<Record<string, Type>>;
  readonly consensus: Readonly<Record<string, Type>>;
  readonly time: Readonly<Record<string, Type>>;
}

export const USER = struct('User', {
  id: STRING,
  tags: listOf(STRING),
  email: STRING,
  alias: STRING,
});
export const CREDENTIAL = struct('Credential', {
  id: STRING,
  user_id: STRING,
  type: STRING,
  credential_id: STRING,
  public_key: STRING,
});
export const ACTIVITY = struct('Activity', {
  type: STRING,
  kind: STRING,
  resource: STRING,
  action: STRING,
  params: ANY,
});
export const WALLET = struct('Wallet', {
  id: STRING,
  imported: BOOL,
  exported: BOOL,
  label: STRING,
});
export const WALLET_ACCOUNT = struct('WalletAccount', { address: STRING });
export const PRIVATE_KEY = struct('PrivateKey', {
  id: STRING,
  tags: listOf(STRING),
  imported: BOOL,
  exported: BOOL,
  label: STRING,
});

const ETHEREUM_TRANSACTION = struct('EthereumTransaction', {
  from: STRING,
  to: STRING,
  data: STRING,
  value: INT,
  gas: INT,
  gas_price: INT,
  chain_id: INT,
  nonce: INT,
  max_fee_per_gas: INT,
  max_priority_fee_per_gas: INT,
  max_fee_per_blob_gas: INT,
  type: STRING,
  function_name: STRING,
  function_signature: STRING,
  contract_call_args: ANY,
});
const EIP712_DOMAIN = struct('Eip712Domain', {
  name: STRING,
  version: STRING,
  chain_id: INT,
  verifying_contract: STRING,
});
const EIP712_TYPED_DATA = struct('Eip712TypedData', {
  primary_type: STRING,
  domain: EIP712_DOMAIN,
  message: ANY,
});
const EIP7702_AUTHORIZATION = struct('Eip7702Authorization', {
  address: STRING,
  chain_id: INT,
  nonce: INT,
});

const SOLANA_ADDRESS_TABLE_LOOKUP = struct('AddressTableLookup', {
  address_table_key: STRING,
  writable_indexes: listOf(INT),
  readonly_indexes: listOf(INT),
});
const SOLANA_ACCOUNT = struct('Account', { account_key: STRING, signer: BOOL, writable: BOOL });
const SOLANA_PARSED_INSTRUCTION_DATA = struct('SolanaParsedInstructionData', {
  instruction_name: STRING,
  discriminator: STRING,
  named_account: mapOf(STRING),
  // The smart-contract-interfaces page spells it `named_accounts`; both are filled.
  named_accounts: mapOf(STRING),
  program_call_args: ANY,
});
const SOLANA_INSTRUCTION = struct('Instruction', {
  program_key: STRING,
  accounts: listOf(SOLANA_ACCOUNT),
  instruction_data_hex: STRING,
  address_table_lookups: listOf(SOLANA_ADDRESS_TABLE_LOOKUP),
  parsed_instruction_data: SOLANA_PARSED_INSTRUCTION_DATA,
});
const SOLANA_TRANSFER = struct('Transfer', { from: STRING, to: STRING, amount: INT });
const SOLANA_SPL_TRANSFER = struct('SPLTransfer', {
  from: STRING,
  to: STRING,
  amount: INT,
  owner: STRING,
  signers: listOf(STRING),
  token_mint: STRING,
});
const SOLANA_TRANSACTION = struct('SolanaTransaction', {
  account_keys: listOf(STRING),
  program_keys: listOf(STRING),
  instructions: listOf(SOLANA_INSTRUCTION),
  transfers: listOf(SOLANA_TRANSFER),
  spl_transfers: listOf(SOLANA_SPL_TRANSFER),
  recent_blockhash: STRING,
  address_table_lookups: listOf(SOLANA_ADDRESS_TABLE_LOOKUP),
});

const TRON_KEY = struct('TronKey', { address: STRING, weight: INT });
const TRON_PERMISSION = struct('TronPermission', {
  type: STRING,
  id: INT,
  permission_name: STRING,
  threshold: INT,
  parent_id: INT,
  operations: STRING,
  // Tron allows at most 5 keys per permission and 8 active permissions per account; a
  // transaction carries one contract (bounded at 4 here). The cost estimate assumes these.
  keys: listOf(TRON_KEY, 5),
});
const TRON_CONTRACT = struct('TronContract', {
  type: STRING,
  permission_id: INT,
  owner_address: STRING,
  to_address: STRING,
  amount: INT,
  contract_address: STRING,
  call_value: INT,
  data: STRING,
  call_token_value: INT,
  token_id: INT,
  resource: STRING,
  balance: INT,
  receiver_address: STRING,
  lock: BOOL,
  lock_period: INT,
  frozen_balance: INT,
  unfreeze_balance: INT,
  owner: TRON_PERMISSION,
  witness: TRON_PERMISSION,
  actives: listOf(TRON_PERMISSION, 8),
});
const TRON_TRANSACTION = struct('TronTransaction', {
  ref_block_bytes: STRING,
  ref_block_hash: STRING,
  expiration: INT,
  timestamp: INT,
  data: STRING,
  fee_limit: INT,
  contract: listOf(TRON_CONTRACT, 4),
});

const BITCOIN_INPUT = struct('BitcoinTxInput', { tx_id: STRING, vout: INT, sequence: INT });
const BITCOIN_OUTPUT = struct('BitcoinTxOutput', {
  value: INT,
  script_pubkey: STRING,
  address: STRING,
  address_type: STRING,
});
const BITCOIN_LOCKTIME = struct('BitcoinTxLocktime', { amount: INT, type: STRING });
const BITCOIN_TRANSACTION = struct('BitcoinTransaction', {
  version: STRING,
  inputs: listOf(BITCOIN_INPUT),
  outputs: listOf(BITCOIN_OUTPUT),
  locktime: BITCOIN_LOCKTIME,
  fee: INT,
});

const TEMPO_CALL = struct('TempoCall', { to: STRING, input: STRING, function_signature: STRING });
const TEMPO_TRANSACTION = struct('TempoTransaction', {
  chain_id: INT,
  from: STRING,
  nonce: INT,
  gas_limit: INT,
  max_fee_per_gas: INT,
  max_priority_fee_per_gas: INT,
  fee_token: STRING,
  valid_before: INT,
  valid_after: INT,
  calls: listOf(TEMPO_CALL),
});

/** The keywords of wire-compat §5. */
export const TURNKEY_SCHEMA: KeywordSchema = {
  consensus: { approvers: listOf(USER), credentials: listOf(CREDENTIAL) },
  condition: {
    activity: ACTIVITY,
    wallet: WALLET,
    wallets: listOf(WALLET),
    wallet_account: WALLET_ACCOUNT,
    private_key: PRIVATE_KEY,
    eth: namespace('eth', {
      tx: ETHEREUM_TRANSACTION,
      eip_712: EIP712_TYPED_DATA,
      eip_7702_authorization: EIP7702_AUTHORIZATION,
    }),
    solana: namespace('solana', { tx: SOLANA_TRANSACTION }),
    tron: namespace('tron', { tx: TRON_TRANSACTION }),
    bitcoin: namespace('bitcoin', { tx: BITCOIN_TRANSACTION }),
    tempo: namespace('tempo', { tx: TEMPO_TRANSACTION }),
  },
  time: { time: namespace('time', { now: TIMESTAMP }) },
};

const NAME = /^[a-z_][a-z0-9_]*$/;
const RESERVED = new Set([...Object.getOwnPropertyNames(Object.prototype), 'true', 'false', 'in']);

/**
 * Check that a schema's names are plain snake_case identifiers and none is a property of
 * `Object.prototype`: the evaluator reads known struct fields with a plain property read.
 */
export function assertSchema(schema: KeywordSchema): void {
  const visit = (type: Type, path: string): void => {
    if (type.t === 'list' || type.t === 'map') {
      visit(type.of, path);
      return;
    }
    const entries =
      type.t === 'struct' ? type.fields : type.t === 'namespace' ? type.members : undefined;
    if (!entries) return;
    for (const [name, inner] of Object.entries(entries)) {
      if (!NAME.test(name) || RESERVED.has(name)) {
        throw new TypeError(`invalid schema name '${path}.${name}'`);
      }
      visit(inner, `${path}.${name}`);
    }
  };
  for (const field of ['condition', 'consensus', 'time'] as const) {
    for (const [name, type] of Object.entries(schema[field])) {
      if (!NAME.test(name) || RESERVED.has(name)) {
        throw new TypeError(`invalid schema keyword '${name}'`);
      }
      visit(type, name);
    }
  }
}
