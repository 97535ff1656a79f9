-- Keyhold store, version 17: smart-contract interfaces (CREATE/DELETE_SMART_CONTRACT_INTERFACE):
-- an organization's Ethereum ABIs and Solana IDLs, one per address key and type, found by
-- SIGN_TRANSACTION to decode the call it signs. Same conventions as 0001.

CREATE TABLE smart_contract_interfaces (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  organization_id text COLLATE "C" NOT NULL,
  smart_contract_interface_id text COLLATE "C" NOT NULL,
  -- SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM or SMART_CONTRACT_INTERFACE_TYPE_SOLANA.
  type text NOT NULL,
  smart_contract_address text NOT NULL,
  -- Ethereum: the address in lower case; Solana: the program id as given.
  address_key text COLLATE "C" NOT NULL,
  -- The ABI or IDL, the JSON text uploaded (at most 400 KiB).
  smart_contract_interface text NOT NULL,
  label text NOT NULL,
  notes text NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  CONSTRAINT smart_contract_interfaces_pkey PRIMARY KEY (organization_id, smart_contract_interface_id),
  CONSTRAINT smart_contract_interfaces_address_key UNIQUE (organization_id, type, address_key)
);
CREATE INDEX smart_contract_interfaces_listing_idx
  ON smart_contract_interfaces (organization_id, created_at, seq);
