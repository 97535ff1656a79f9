-- Keyhold store, version 9: session keys. STAMP_LOGIN and CREATE_READ_WRITE_SESSION add
-- expiring API keys of their own credential types (CREDENTIAL_TYPE_LOGIN,
-- CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256); NULL is the API key type of the key's curve,
-- so the keys already stored read as before.

ALTER TABLE api_keys ADD COLUMN credential_type text;
