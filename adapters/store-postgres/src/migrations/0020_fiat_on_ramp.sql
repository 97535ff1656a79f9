-- Keyhold store, version 20: the fiat on-ramp. fiat_on_ramp_credentials holds an
-- organization's app at an on-ramp provider (CREATE/UPDATE/DELETE_FIAT_ON_RAMP_CREDENTIAL), one
-- per provider and mode; its secret and private API keys are never stored in the clear:
-- sealed_* are AES-256-GCM under a key derived from the master key. on_ramp_transactions holds
-- the purchases INIT_FIAT_ON_RAMP initiated and their recorded status. Same conventions as 0001.

CREATE TABLE fiat_on_ramp_credentials (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  organization_id text COLLATE "C" NOT NULL,
  fiat_onramp_credential_id text COLLATE "C" NOT NULL,
  -- FIAT_ON_RAMP_PROVIDER_MOONPAY or FIAT_ON_RAMP_PROVIDER_COINBASE.
  onramp_provider text COLLATE "C" NOT NULL,
  publishable_api_key text NOT NULL,
  project_id text,
  sealed_secret_api_key text NOT NULL,
  sealed_private_api_key text,
  sandbox_mode boolean NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  CONSTRAINT fiat_on_ramp_credentials_pkey PRIMARY KEY (organization_id, fiat_onramp_credential_id),
  CONSTRAINT fiat_on_ramp_credentials_provider_key UNIQUE (organization_id, onramp_provider, sandbox_mode)
);
CREATE INDEX fiat_on_ramp_credentials_listing_idx
  ON fiat_on_ramp_credentials (organization_id, created_at, seq);

CREATE TABLE on_ramp_transactions (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  organization_id text COLLATE "C" NOT NULL,
  transaction_id text COLLATE "C" NOT NULL,
  onramp_provider text COLLATE "C" NOT NULL,
  fiat_onramp_credential_id text COLLATE "C" NOT NULL,
  wallet_address text NOT NULL,
  network text NOT NULL,
  crypto_currency_code text NOT NULL,
  fiat_currency_code text,
  fiat_currency_amount text,
  sandbox_mode boolean NOT NULL,
  -- INITIATED once the widget URL is made; a provider adapter that learns more updates it.
  status text NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  CONSTRAINT on_ramp_transactions_pkey PRIMARY KEY (organization_id, transaction_id)
);
CREATE INDEX on_ramp_transactions_listing_idx
  ON on_ramp_transactions (organization_id, created_at, seq);
