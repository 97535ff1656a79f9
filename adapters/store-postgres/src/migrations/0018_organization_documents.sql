-- Keyhold store, version 18: organization documents, the small records of an organization
-- that have no table of their own (issue 15): features, the auth proxy's configuration, TVC
-- apps, operator sets, operators, deployments, manifests and approvals, payment methods (last
-- four digits and holder only), the billing tier, app proofs. Same conventions as 0001.

CREATE TABLE organization_documents (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  organization_id text COLLATE "C" NOT NULL,
  kind text COLLATE "C" NOT NULL,
  document_id text COLLATE "C" NOT NULL,
  body jsonb NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  CONSTRAINT organization_documents_pkey PRIMARY KEY (organization_id, kind, document_id)
);
CREATE INDEX organization_documents_listing_idx ON organization_documents (organization_id, created_at, seq);
