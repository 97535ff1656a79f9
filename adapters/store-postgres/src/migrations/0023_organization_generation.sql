-- Keyhold store, version 23: an organization's generation (issue 11, speed). It changes with
-- every committed change to the rows a request's authentication, decision and webhook fan-out
-- read over and over: credentials (users, API keys, passkeys), policies, signing keys (wallet
-- accounts, private keys) and webhook endpoints. A trigger on each of those tables gives the
-- organizations a changed row belongs to a new generation in the same transaction as the
-- change, so a store instance may keep what it read of them for as long as the organization's
-- generation, which it reads with the organization anyway, stays the same
-- (`generation-cache.ts`). Generations come from one sequence, so an organization deleted and
-- made again under its id never repeats one; the sequence belongs to no column, so TRUNCATE …
-- RESTART IDENTITY leaves it be. Statement-level triggers: one new generation per statement,
-- not per row. Same conventions as 0001.

CREATE SEQUENCE organization_generations;
ALTER TABLE organizations
  ADD COLUMN generation bigint NOT NULL DEFAULT nextval('organization_generations');

-- The search path the migration runs under (the store's schema), whoever's statement fires it.
CREATE FUNCTION keyhold_next_generation() RETURNS trigger LANGUAGE plpgsql
  SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    UPDATE organizations SET generation = nextval('organization_generations');
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE organizations SET generation = nextval('organization_generations')
     WHERE organization_id IN (SELECT organization_id FROM old_rows);
  ELSIF TG_OP = 'INSERT' THEN
    UPDATE organizations SET generation = nextval('organization_generations')
     WHERE organization_id IN (SELECT organization_id FROM new_rows);
  ELSE
    UPDATE organizations SET generation = nextval('organization_generations')
     WHERE organization_id IN (SELECT organization_id FROM new_rows
                               UNION SELECT organization_id FROM old_rows);
  END IF;
  RETURN NULL;
END $$;

DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['users', 'api_keys', 'authenticators', 'policies', 'wallet_accounts',
                           'private_keys', 'webhook_endpoints'] LOOP
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows
                    FOR EACH STATEMENT EXECUTE FUNCTION keyhold_next_generation()',
                   t || '_generation_insert', t);
    EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING OLD TABLE AS old_rows
                    NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION keyhold_next_generation()',
                   t || '_generation_update', t);
    EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows
                    FOR EACH STATEMENT EXECUTE FUNCTION keyhold_next_generation()',
                   t || '_generation_delete', t);
    EXECUTE format('CREATE TRIGGER %I AFTER TRUNCATE ON %I
                    FOR EACH STATEMENT EXECUTE FUNCTION keyhold_next_generation()',
                   t || '_generation_truncate', t);
  END LOOP;
END $$;
