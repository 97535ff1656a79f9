-- Keyhold store, version 12: users' OAuth providers (OIDC identities: issuer, audience,
-- subject) for OAUTH_LOGIN and OAUTH. The id_token a provider was registered with is never
-- stored. An identity is unique in its organization; a login finds the organization's
-- providers through oauth_providers_identity_key. Same conventions as 0001.

CREATE TABLE oauth_providers (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  organization_id text COLLATE "C" NOT NULL,
  provider_id text COLLATE "C" NOT NULL,
  user_id text COLLATE "C" NOT NULL,
  provider_name text NOT NULL,
  issuer text COLLATE "C" NOT NULL,
  audience text COLLATE "C" NOT NULL,
  subject text COLLATE "C" NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  CONSTRAINT oauth_providers_pkey PRIMARY KEY (organization_id, provider_id),
  CONSTRAINT oauth_providers_identity_key UNIQUE (organization_id, issuer, audience, subject)
);
CREATE INDEX oauth_providers_listing_idx ON oauth_providers (organization_id, created_at, seq);
