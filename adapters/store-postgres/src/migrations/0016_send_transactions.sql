-- Keyhold store, version 16: the send-transaction activities. send_transactions holds
-- ETH_SEND_TRANSACTION's signed transactions (public data), stored before they are broadcast,
-- so that a cut-short broadcast repeats the same bytes; gas_usage_configs the gas sponsorship
-- limits of UPSERT_GAS_USAGE_CONFIG. Same conventions as 0001.

CREATE TABLE send_transactions (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  organization_id text COLLATE "C" NOT NULL,
  send_transaction_status_id text COLLATE "C" NOT NULL,
  activity_id text COLLATE "C" NOT NULL,
  -- eip155:<chainId>
  caip2 text NOT NULL,
  from_address text NOT NULL,
  tx_hash text NOT NULL,
  signed_transaction text NOT NULL,
  -- The sponsor's gas top-up of a sponsored transaction, and what it was worth.
  sponsor_signed_transaction text,
  sponsor_tx_hash text,
  sponsored_wei text,
  sponsored_usd text,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  CONSTRAINT send_transactions_pkey PRIMARY KEY (organization_id, send_transaction_status_id)
);
CREATE INDEX send_transactions_listing_idx ON send_transactions (organization_id, created_at, seq);

CREATE TABLE gas_usage_configs (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  organization_id text COLLATE "C" NOT NULL,
  gas_usage_config_id text COLLATE "C" NOT NULL,
  org_window_limit_usd text NOT NULL,
  sub_org_window_limit_usd text NOT NULL,
  window_duration_minutes integer NOT NULL,
  enabled boolean NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  CONSTRAINT gas_usage_configs_pkey PRIMARY KEY (organization_id, gas_usage_config_id)
);
CREATE INDEX gas_usage_configs_listing_idx ON gas_usage_configs (organization_id, created_at, seq);
