-- Keyhold store, version 4: webhook endpoints and the outbox of webhook deliveries.
-- Same conventions as 0001 (text ids in the "C" collation, epoch-ms bigint times, a hidden
-- `seq` for insertion order, no foreign keys, only the port's uniqueness rules).

CREATE TABLE webhook_endpoints (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  organization_id text COLLATE "C" NOT NULL,
  endpoint_id text COLLATE "C" NOT NULL,
  url text NOT NULL,
  name text NOT NULL,
  is_active boolean NOT NULL,
  -- [{eventType, filtersJson?, isActive}], fixed at creation.
  subscriptions jsonb NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  CONSTRAINT webhook_endpoints_pkey PRIMARY KEY (organization_id, endpoint_id)
);
CREATE INDEX webhook_endpoints_listing_idx ON webhook_endpoints (organization_id, created_at, seq);

-- One row per delivery of one event to one endpoint, written in the transaction of the
-- activity it announces. Dispatchers on any instance claim due rows with a lease
-- (lease_until) under FOR UPDATE SKIP LOCKED, so two never hold the same row at once.
CREATE TABLE webhook_deliveries (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  delivery_id text COLLATE "C" NOT NULL,
  event_id text COLLATE "C" NOT NULL,
  organization_id text COLLATE "C" NOT NULL,
  endpoint_id text COLLATE "C" NOT NULL,
  -- The endpoint URL when the event was enqueued.
  url text NOT NULL,
  event_type text NOT NULL,
  -- The exact JSON body to POST (signed as bytes, never re-serialized).
  body text NOT NULL,
  -- PENDING, DELIVERED or FAILED.
  status text NOT NULL,
  attempts integer NOT NULL,
  next_attempt_at bigint NOT NULL,
  lease_until bigint,
  last_error text,
  delivered_at bigint,
  failed_at bigint,
  created_at bigint NOT NULL,
  CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (delivery_id)
);
-- Claiming: the due PENDING rows (then oldest first).
CREATE INDEX webhook_deliveries_due_idx
  ON webhook_deliveries (next_attempt_at, created_at, seq) WHERE status = 'PENDING';
-- Deleting an endpoint removes its PENDING rows.
CREATE INDEX webhook_deliveries_endpoint_idx
  ON webhook_deliveries (organization_id, endpoint_id) WHERE status = 'PENDING';
