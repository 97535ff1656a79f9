-- Keyhold store, version 10: one-time codes (INIT_OTP, VERIFY_OTP, OTP_LOGIN). The code is
-- never stored: code_mac is a keyed HMAC-SHA256 of it. Same conventions as 0001.

CREATE TABLE otps (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  organization_id text COLLATE "C" NOT NULL,
  otp_id text COLLATE "C" NOT NULL,
  -- OTP_TYPE_EMAIL or OTP_TYPE_SMS.
  otp_type text NOT NULL,
  contact text NOT NULL,
  code_mac text NOT NULL,
  attempts integer NOT NULL,
  expires_at bigint NOT NULL,
  verified_at bigint,
  token_used_at bigint,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  CONSTRAINT otps_pkey PRIMARY KEY (organization_id, otp_id)
);
CREATE INDEX otps_listing_idx ON otps (organization_id, created_at, seq);
