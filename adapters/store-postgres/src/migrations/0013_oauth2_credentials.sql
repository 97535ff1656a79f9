-- Keyhold store, version 13: OAuth 2.0 credentials (CREATE/UPDATE/DELETE_OAUTH2_CREDENTIAL,
-- OAUTH2_AUTHENTICATE). The client secret is never stored in the clear: sealed_client_secret
-- is AES-256-GCM under a key derived from the master key. Same conventions as 0001.

CREATE TABLE oauth2_credentials (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  organization_id text COLLATE "C" NOT NULL,
  oauth2_credential_id text COLLATE "C" NOT NULL,
  -- OAUTH2_PROVIDER_X or OAUTH2_PROVIDER_DISCORD.
  provider text NOT NULL,
  client_id text NOT NULL,
  sealed_client_secret text NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  CONSTRAINT oauth2_credentials_pkey PRIMARY KEY (organization_id, oauth2_credential_id)
);
CREATE INDEX oauth2_credentials_listing_idx ON oauth2_credentials (organization_id, created_at, seq);
