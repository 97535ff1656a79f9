-- Keyhold store, version 8: passkeys (WebAuthn authenticators) and the origins they may be
-- used from. A credential id is unique in its organization, as an API key's public key is;
-- authentication finds the organization's and its parent's passkeys through
-- authenticators_credential_id_key (organization_id, credential_id), and the
-- sub-organizations' (whoami and logins at the parent) through authenticators_credential_idx.
-- sign_count is the signature counter of the last accepted assertion.

CREATE TABLE authenticators (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  organization_id text COLLATE "C" NOT NULL,
  authenticator_id text COLLATE "C" NOT NULL,
  user_id text COLLATE "C" NOT NULL,
  authenticator_name text NOT NULL,
  credential_id text COLLATE "C" NOT NULL,
  public_key text NOT NULL,
  algorithm integer NOT NULL,
  aaguid text NOT NULL,
  attestation_type text NOT NULL,
  transports text[] NOT NULL,
  sign_count bigint NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  CONSTRAINT authenticators_pkey PRIMARY KEY (organization_id, authenticator_id),
  CONSTRAINT authenticators_credential_id_key UNIQUE (organization_id, credential_id)
);
CREATE INDEX authenticators_listing_idx ON authenticators (organization_id, created_at, seq);
CREATE INDEX authenticators_credential_idx ON authenticators (credential_id, organization_id);
-- A user's passkeys, in creation order: listed with the user, and by the credential lookup.
CREATE INDEX authenticators_user_idx ON authenticators (organization_id, user_id, created_at, seq);

ALTER TABLE organizations ADD COLUMN allowed_origins text[];
