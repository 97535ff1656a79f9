-- Keyhold store, version 22: a verification token's sign-up use, apart from its login use
-- (issue 16, the auth proxy). `@turnkey/core` signs up with a token (CREATE_SUB_ORGANIZATION
-- with a sign-up client signature) and then logs in with the same token (STAMP_LOGIN with an
-- attested stamp): each use happens once. Same conventions as 0001.

ALTER TABLE otps ADD COLUMN signup_used_at bigint;
