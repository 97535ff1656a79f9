-- Keyhold store, version 7: webhook endpoint health. The delivery dispatcher counts an
-- endpoint's consecutive FAILED deliveries and turns the endpoint off when they reach its
-- limit, or at once on 410 Gone or a URL that can never be delivered to; disabled_reason says
-- why (list_webhook_endpoints shows it) until the endpoint is made active again.

ALTER TABLE webhook_endpoints
  ADD COLUMN consecutive_failures integer NOT NULL DEFAULT 0,
  ADD COLUMN disabled_reason text;
