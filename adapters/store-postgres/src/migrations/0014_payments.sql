-- Keyhold store, version 14: the payment gateway's payments (x402 "exact" on EVM). One row per
-- EIP-3009 authorization, ever: authorization_key is unique across organizations, so a replay
-- can never claim an authorization a second time. Same conventions as 0001.

CREATE TABLE payments (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  organization_id text COLLATE "C" NOT NULL,
  payment_id text COLLATE "C" NOT NULL,
  -- The gateway's network name: base-sepolia or base-mainnet.
  network text NOT NULL,
  x402_version integer NOT NULL,
  -- verified, submitted, settled, failed or unknown.
  status text NOT NULL,
  -- settle or charge.
  source text NOT NULL,
  payer text NOT NULL,
  pay_to text NOT NULL,
  asset text NOT NULL,
  amount text NOT NULL,
  authorization_key text COLLATE "C" NOT NULL,
  payload_hash text NOT NULL,
  valid_before bigint NOT NULL,
  transaction text,
  -- The signed settling transaction: public data, kept to broadcast the same bytes again.
  raw_transaction text,
  error_reason text,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  CONSTRAINT payments_pkey PRIMARY KEY (organization_id, payment_id),
  CONSTRAINT payments_authorization_key_key UNIQUE (authorization_key)
);
CREATE INDEX payments_listing_idx ON payments (organization_id, created_at, seq);
-- The reconciler's scan: the few payments still submitted or unknown.
CREATE INDEX payments_status_idx ON payments (status, created_at, seq);
