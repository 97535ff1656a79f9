-- Keyhold store, version 15: the tamper-evident audit log. Each organization has one chain:
-- entry n's hash is the hex SHA-256 of entry n-1's hash (64 zeros before entry 1), a newline,
-- and entry n's body. audit_heads holds each chain's newest seq and hash, so a cut-off tail is
-- as visible as an edited entry; appending updates it in the same statement, holding its row
-- lock until the transaction ends. Entries are never updated or deleted.

CREATE TABLE audit_entries (
  organization_id text COLLATE "C" NOT NULL,
  seq bigint NOT NULL,
  body text NOT NULL,
  hash text NOT NULL,
  created_at bigint NOT NULL,
  CONSTRAINT audit_entries_pkey PRIMARY KEY (organization_id, seq)
);

CREATE TABLE audit_heads (
  organization_id text COLLATE "C" NOT NULL,
  seq bigint NOT NULL,
  hash text NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  CONSTRAINT audit_heads_pkey PRIMARY KEY (organization_id)
);
