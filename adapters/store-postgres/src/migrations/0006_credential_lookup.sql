-- Keyhold store, version 6: authentication finds a credential by its public key in one
-- indexed lookup whatever the organization tree. The organization's and its parent's keys are
-- found through api_keys_public_key_key (organization_id, public_key); this index serves the
-- sub-organizations' keys (whoami at the parent), which otherwise took one query per child.

CREATE INDEX api_keys_public_key_idx ON api_keys (public_key, organization_id);
