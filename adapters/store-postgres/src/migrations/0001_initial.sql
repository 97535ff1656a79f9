-- Keyhold store, version 1: one table per record of the Store port.
--
-- Conventions
-- * Ids are text in the "C" collation: byte order equals JavaScript string order, so
--   activities (UUIDv7 ids) list newest first by id exactly as the memory store does.
-- * Times are epoch milliseconds (bigint).
-- * `seq` (an identity column) records insertion order: it breaks createdAt ties and is
--   the creation order of wallet accounts. It is never exposed through the port.
-- * No foreign keys and no CHECK constraints: the store enforces exactly the uniqueness
--   rules of the Store port, no more, so it behaves like the memory store.
-- * Secrets (wallet seeds, account and private keys) are SealedSecret strings: ciphertext
--   from the KeyVault. Nothing in this schema ever holds plaintext key material.
-- * Constraint names are mapped to the port's names by src/schema.ts (CONSTRAINT_NAMES).

CREATE TABLE organizations (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  organization_id text COLLATE "C" NOT NULL,
  name text NOT NULL,
  parent_organization_id text COLLATE "C",
  root_quorum jsonb NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  CONSTRAINT organizations_pkey PRIMARY KEY (organization_id)
);
-- findRootByName: the oldest organization without a parent with that name.
CREATE INDEX organizations_root_name_idx ON organizations (name, created_at, seq)
  WHERE parent_organization_id IS NULL OR parent_organization_id = '';

CREATE TABLE users (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  organization_id text COLLATE "C" NOT NULL,
  user_id text COLLATE "C" NOT NULL,
  user_name text NOT NULL,
  user_email text,
  user_phone_number text,
  user_tags text[] NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  CONSTRAINT users_pkey PRIMARY KEY (organization_id, user_id)
);
CREATE INDEX users_listing_idx ON users (organization_id, created_at, seq);

CREATE TABLE api_keys (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  organization_id text COLLATE "C" NOT NULL,
  api_key_id text COLLATE "C" NOT NULL,
  user_id text COLLATE "C" NOT NULL,
  api_key_name text NOT NULL,
  public_key text NOT NULL,
  curve text NOT NULL,
  expiration_seconds text,
  expires_at bigint,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  CONSTRAINT api_keys_pkey PRIMARY KEY (organization_id, api_key_id),
  -- Authentication looks a credential up by its public key (findByPublicKey).
  CONSTRAINT api_keys_public_key_key UNIQUE (organization_id, public_key)
);
CREATE INDEX api_keys_listing_idx ON api_keys (organization_id, created_at, seq);
CREATE INDEX api_keys_user_idx ON api_keys (organization_id, user_id, created_at, seq);

CREATE TABLE wallets (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  organization_id text COLLATE "C" NOT NULL,
  wallet_id text COLLATE "C" NOT NULL,
  wallet_name text NOT NULL,
  seed text NOT NULL, -- SealedSecret
  mnemonic_length integer NOT NULL,
  exported boolean NOT NULL,
  imported boolean NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  CONSTRAINT wallets_pkey PRIMARY KEY (organization_id, wallet_id)
);
CREATE INDEX wallets_listing_idx ON wallets (organization_id, created_at, seq);

CREATE TABLE wallet_accounts (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  organization_id text COLLATE "C" NOT NULL,
  wallet_id text COLLATE "C" NOT NULL,
  wallet_account_id text COLLATE "C" NOT NULL,
  curve text NOT NULL,
  path_format text NOT NULL,
  path text NOT NULL,
  address_format text NOT NULL,
  address text NOT NULL,
  -- addressKey(address): 0x-hex lower-cased, anything else as is (computed by the store).
  address_key text NOT NULL,
  public_key text NOT NULL,
  key text NOT NULL, -- SealedSecret
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  CONSTRAINT wallet_accounts_pkey PRIMARY KEY (organization_id, wallet_account_id),
  CONSTRAINT wallet_accounts_path_key UNIQUE (organization_id, wallet_id, path)
);
CREATE INDEX wallet_accounts_listing_idx ON wallet_accounts (organization_id, seq);
CREATE INDEX wallet_accounts_wallet_idx ON wallet_accounts (organization_id, wallet_id, seq);
CREATE INDEX wallet_accounts_address_idx ON wallet_accounts (organization_id, address_key, seq);
CREATE INDEX wallet_accounts_public_key_idx ON wallet_accounts (organization_id, public_key, seq);

CREATE TABLE private_keys (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  organization_id text COLLATE "C" NOT NULL,
  private_key_id text COLLATE "C" NOT NULL,
  private_key_name text NOT NULL,
  curve text NOT NULL,
  public_key text NOT NULL,
  addresses jsonb NOT NULL,
  -- addressKey() of every address, for findByAddress (computed by the store).
  address_keys text[] NOT NULL,
  private_key_tags text[] NOT NULL,
  key text NOT NULL, -- SealedSecret
  exported boolean NOT NULL,
  imported boolean NOT NULL,
  disabled boolean NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  CONSTRAINT private_keys_pkey PRIMARY KEY (organization_id, private_key_id)
);
CREATE INDEX private_keys_listing_idx ON private_keys (organization_id, created_at, seq);
CREATE INDEX private_keys_public_key_idx ON private_keys (organization_id, public_key, seq);
CREATE INDEX private_keys_address_keys_idx ON private_keys USING gin (address_keys);

CREATE TABLE activities (
  id text COLLATE "C" NOT NULL,
  organization_id text COLLATE "C" NOT NULL,
  type text NOT NULL,
  status text NOT NULL,
  parameters jsonb NOT NULL,
  result jsonb,
  failure jsonb,
  votes jsonb NOT NULL,
  fingerprint text NOT NULL,
  timestamp_ms text NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  CONSTRAINT activities_pkey PRIMARY KEY (id),
  -- One activity per request body, across all organizations and all instances.
  CONSTRAINT activities_fingerprint_key UNIQUE (fingerprint)
);
-- list_activities: newest first within an organization, paged by id.
CREATE INDEX activities_listing_idx ON activities (organization_id, id DESC);
