-- Keyhold store, version 2: policies, user tags, private-key tags and policy evaluations.
-- Same conventions as 0001 (text ids in the "C" collation, epoch-ms bigint times, a hidden
-- `seq` for insertion order, no foreign keys, only the port's uniqueness rules).
-- Tag membership stays where it was: users.user_tags and private_keys.private_key_tags hold
-- tag ids.

CREATE TABLE policies (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  organization_id text COLLATE "C" NOT NULL,
  policy_id text COLLATE "C" NOT NULL,
  policy_name text COLLATE "C" NOT NULL,
  effect text NOT NULL,
  -- Policy-language texts as written (NULL: absent, meaning "always").
  condition_expr text,
  consensus_expr text,
  time_expr text,
  notes text NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  CONSTRAINT policies_pkey PRIMARY KEY (organization_id, policy_id),
  -- "policy label must be unique" (exact, case-sensitive names).
  CONSTRAINT policies_name_key UNIQUE (organization_id, policy_name)
);
CREATE INDEX policies_listing_idx ON policies (organization_id, created_at, seq);

CREATE TABLE user_tags (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  organization_id text COLLATE "C" NOT NULL,
  tag_id text COLLATE "C" NOT NULL,
  tag_name text COLLATE "C" NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  CONSTRAINT user_tags_pkey PRIMARY KEY (organization_id, tag_id),
  CONSTRAINT user_tags_name_key UNIQUE (organization_id, tag_name)
);
CREATE INDEX user_tags_listing_idx ON user_tags (organization_id, created_at, seq);

CREATE TABLE private_key_tags (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  organization_id text COLLATE "C" NOT NULL,
  tag_id text COLLATE "C" NOT NULL,
  tag_name text COLLATE "C" NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  CONSTRAINT private_key_tags_pkey PRIMARY KEY (organization_id, tag_id),
  CONSTRAINT private_key_tags_name_key UNIQUE (organization_id, tag_name)
);
CREATE INDEX private_key_tags_listing_idx ON private_key_tags (organization_id, created_at, seq);

-- One row per decision on an activity (per vote): the outcome of every policy.
CREATE TABLE policy_evaluations (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  id text COLLATE "C" NOT NULL,
  activity_id text COLLATE "C" NOT NULL,
  organization_id text COLLATE "C" NOT NULL,
  vote_id text COLLATE "C",
  policy_evaluations jsonb NOT NULL,
  created_at bigint NOT NULL,
  CONSTRAINT policy_evaluations_pkey PRIMARY KEY (id)
);
CREATE INDEX policy_evaluations_activity_idx
  ON policy_evaluations (organization_id, activity_id, created_at, seq);
