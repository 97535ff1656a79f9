-- Keyhold store, version 3: a wallet account remembers that it was exported on its own
-- (EXPORT_WALLET_ACCOUNT), so DELETE_WALLET_ACCOUNTS accepts it without deleteWithoutExport.
-- Accounts that exist already were never exported alone: they start at false (an account
-- of an exported wallet still counts as exported through wallets.exported).

ALTER TABLE wallet_accounts ADD COLUMN exported boolean NOT NULL DEFAULT false;
