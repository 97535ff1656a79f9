-- Keyhold store, version 11: invitations (CREATE_INVITATIONS, ACCEPT_INVITATION,
-- DELETE_INVITATION) and verified contacts (a user's email or phone number proven by a
-- verification token: sign-up, UPDATE_USER_EMAIL / UPDATE_USER_PHONE_NUMBER;
-- list_verified_suborgs), and a sub-organization's disableEmailAuth / disableEmailRecovery
-- switches. Same conventions as 0001. Nothing here is secret: an invitation's
-- key went only to the invitee's mailbox, its public half is an API key of the invitee.

CREATE TABLE invitations (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  organization_id text COLLATE "C" NOT NULL,
  invitation_id text COLLATE "C" NOT NULL,
  receiver_user_name text NOT NULL,
  receiver_email text NOT NULL,
  receiver_user_tags text[] NOT NULL,
  -- ACCESS_TYPE_WEB, ACCESS_TYPE_API or ACCESS_TYPE_ALL.
  access_type text NOT NULL,
  -- INVITATION_STATUS_CREATED, INVITATION_STATUS_ACCEPTED or INVITATION_STATUS_REVOKED.
  status text NOT NULL,
  sender_user_id text COLLATE "C" NOT NULL,
  user_id text COLLATE "C" NOT NULL,
  api_key_id text COLLATE "C" NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  CONSTRAINT invitations_pkey PRIMARY KEY (organization_id, invitation_id)
);
CREATE INDEX invitations_listing_idx ON invitations (organization_id, created_at, seq);

ALTER TABLE users ADD COLUMN email_verified_at bigint;
ALTER TABLE users ADD COLUMN phone_number_verified_at bigint;

ALTER TABLE organizations ADD COLUMN email_auth_disabled boolean;
ALTER TABLE organizations ADD COLUMN email_recovery_disabled boolean;
