-- Keyhold store, version 19: what the software vault keeps beside the secrets it seals. Today
-- one row, 'derivation-root': the secret Keyhold's published keys (signer, notarizer, TLS
-- fetcher, webhook) are derived from, sealed under the current master key. It is written by
-- `keyhold master-key rotate` in the transaction that re-seals every secret, so it also tells
-- which master key the data is under. Absent until the first rotation (the root is then the
-- master key itself). Not part of the Store port: only operator commands and start-up read it.
CREATE TABLE vault_state (
  name text COLLATE "C" NOT NULL,
  sealed text NOT NULL,
  updated_at bigint NOT NULL,
  CONSTRAINT vault_state_pkey PRIMARY KEY (name)
);
