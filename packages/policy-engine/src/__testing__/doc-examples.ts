/**
 * Policy expressions from the reference (wire-compat §5 and the docs pages it cites:
 * features/policies/language.mdx, examples/*.mdx, time-based-policies.mdx), with concrete
 * values in place of the docs' `<PLACEHOLDERS>`.
 */

export const CONSENSUS_EXAMPLES = [
  "approvers.any(user, user.id == '4b894565-fa11-42fc-b813-5bf4ea3d53f9')",
  "approvers.filter(user, user.tags.contains('tag-ops')).count() >= 2",
  "credentials.any(c, c.type == 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR')",
  "credentials.any(credential, credential.public_key == '02f739f8c77b32f4d5f13265861febd76e7a9c61a1140d296b8c16302508870316')",
  "approvers.any(user, user.tags.contains('tag-sec') || user.tags.contains('tag-ops')) && (approvers.filter(user, user.tags.contains('tag-sec')).count() >= 1 && approvers.filter(user, user.tags.contains('tag-ops')).count() >= 2)",
];

export const CONDITION_EXAMPLES = [
  // wire-compat §5 examples
  "activity.resource == 'POLICY' && activity.action in ['CREATE','UPDATE']",
  "activity.action == 'SIGN' && wallet.id == 'wallet-1'",
  "private_key.tags.contains('tag-keys')",
  "solana.tx.transfers.all(t, t.to == 'RecipientAddr111')",
  "eth.eip_712.message['permitted'].all(p, p['token'] == '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48')",
  // the grammar table
  'true && false',
  '1 < 2',
  "'a' != 'b'",
  '1 in [1, 2, 3]',
  '[1,2,3][0] == 1',
  "'abc'[0] == 'a'",
  '[1,2,3][0..2].count() == 2',
  "'abc'[0..2] == 'ab'",
  '[1,1,1].all(x, x == 1)',
  '[1,2,3].any(x, x == 1)',
  '[1,2,3].contains(1)',
  '[1,2,3].count() == 3',
  '[1,2,3].filter(x, x == 1).count() == 1',
  '170141183460469231731687303715884105728 > 1',
  // access control
  "activity.action == 'DELETE'",
  "activity.action == 'EXPORT' && wallet_account.address == '0x6e0d01a76c3cf4288372a29124a26d4353ee51be'",
  "activity.action == 'SIGN' && private_key.id == 'key-1'",
  "activity.kind == 'CREATE_READ_WRITE_SESSION'",
  "activity.type == 'ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2'",
  "activity.resource == 'POLICY' && (activity.action == 'CREATE' || activity.action == 'UPDATE' || activity.action == 'DELETE')",
  "activity.resource in ['AUTH', 'OTP'] && activity.action in ['CREATE','VERIFY']",
  "activity.type == 'ACTIVITY_TYPE_DELETE_USERS' && activity.params.user_ids.count() == 1 && 'user-1' in activity.params.user_ids",
  "activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2' && activity.params.hash_function == 'HASH_FUNCTION_NO_OP' && activity.params.encoding != 'PAYLOAD_ENCODING_EIP712'",
  "activity.params.type == 'TRANSACTION_TYPE_TEMPO'",
  // ethereum
  'eth.tx.chain_id == 11155111',
  'eth.tx.nonce <= 3',
  "eth.tx.to == '0xc' && eth.tx.data[0..10] == '0xa9059cbb'",
  "eth.tx.to == '0xc' && eth.tx.function_name == 'transfer'",
  "eth.tx.contract_call_args['wad'] < 1000000000000000000 && eth.tx.contract_call_args['dst'] == '0x08d2b0a37F869FF76BACB5Bab3278E26ab7067B7'",
  "eth.tx.function_name == 'disperse' && eth.tx.contract_call_args['recipients'].all(addr, addr in ['0x1', '0x2', '0x3'])",
  "eth.tx.function_name == 'executeBatch' && eth.tx.contract_call_args['calls'].count() <= 2 && eth.tx.contract_call_args['calls'].all(call, call[0] == '0xc' && call[1] == 0)",
  "eth.eip_712.domain.name == 'Permit2' && eth.eip_712.primary_type == 'PermitBatchTransferFrom' && eth.eip_712.message['permitted'].any(p, p['token'] == '0xa0b8' && p['amount'] < 100000000) && activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'",
  "eth.eip_712.message['permitted'][0]['token'] == '0xa0b8'",
  "eth.eip_712.message['permitted'].count() <= 2",
  "eth.eip_712.domain.name == 'USD Coin' && eth.eip_712.primary_type == 'Permit'",
  "eth.eip_7702_authorization.address == '0xabc' && eth.eip_7702_authorization.chain_id == 1 && eth.eip_7702_authorization.nonce == 0",
  // solana
  'solana.tx.address_table_lookups.count() > 0',
  'solana.tx.instructions.count() == 1 && solana.tx.spl_transfers.count() == 1 && solana.tx.spl_transfers.all(transfer, transfer.amount < 500)',
  "solana.tx.instructions.count() == 1 && solana.tx.spl_transfers.count() == 1 && solana.tx.spl_transfers.all(transfer, transfer.signers.any(s, s == 'Signer1'))",
  "solana.tx.instructions.count() == solana.tx.spl_transfers.count() && solana.tx.spl_transfers.all(transfer, transfer.token_mint == 'Mint1')",
  "solana.tx.instructions[0].accounts[0].account_key == 'Acct1'",
  "solana.tx.instructions[0].instruction_data_hex == '0200000040420f0000000000'",
  "solana.tx.program_keys.all(p, p == '11111111111111111111111111111111')",
  "solana.tx.transfers.count == 1 && solana.tx.transfers[0].to == 'RecipientAddr111'",
  "solana.tx.transfers.any(t, t.to == 'ADDRESS_TABLE_LOOKUP') || solana.tx.spl_transfers.any(t, t.to == 'ADDRESS_TABLE_LOOKUP')",
  "solana.tx.instructions[0].parsed_instruction_data.named_account['source'] == 'Acct1'",
  // tron, bitcoin, tempo
  'tron.tx.contract[0].amount < 10000000',
  "tron.tx.contract[0].contract_address == 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf' && tron.tx.contract[0].data[0..8] == 'a9059cbb'",
  "tron.tx.contract[0].type == 'TransferContract'",
  'bitcoin.tx.fee <= 10000',
  'bitcoin.tx.outputs.all(o, o.value < 200000)',
  "bitcoin.tx.inputs.all(i, i.tx_id == 'txid-1' && i.vout == 0)",
  "bitcoin.tx.outputs.all(o, o.address == 'bc1qexample')",
  "tempo.tx.calls[0].input[34..74] == 'abc'",
  // time-based pages
  "activity.kind == 'SIGN_TRANSACTION' && eth.tx.to == '0xtreasury'",
];

export const TIME_EXAMPLES = [
  "time.now >= Timestamp('2026-03-01T00:00:00Z') && time.now < Timestamp('2026-04-01T00:00:00Z')",
  "CronSpan('0 9 * * 1-5', '8h', 'America/New_York')",
  "CronSpan('0 22 * * *', '8h', 'America/New_York')",
  "CronSpan('0 9 * * 1-5', '8h', 'America/New_York') && time.now < Timestamp('2026-01-01T00:00:00Z')",
  "!CronSpan('0 2 * * *', '1h', 'UTC')",
  "time.now >= Timestamp('2025-01-01T00:00:00Z') && time.now < Timestamp('2025-02-01T00:00:00Z')",
];
