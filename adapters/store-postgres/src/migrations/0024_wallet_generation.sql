-- Keyhold store, version 24: wallets move their organization's generation too (issue 11,
-- speed). A policy's condition reads the wallet of the key it signs with (and the user), so
-- with wallets kept by the generation cache an organization with policies signs with its one
-- write and no read, as one without policies does. The same triggers as 0023's, on one more
-- table. Same conventions as 0001.

CREATE TRIGGER wallets_generation_insert AFTER INSERT ON wallets
  REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION keyhold_next_generation();
CREATE TRIGGER wallets_generation_update AFTER UPDATE ON wallets
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION keyhold_next_generation();
CREATE TRIGGER wallets_generation_delete AFTER DELETE ON wallets
  REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION keyhold_next_generation();
CREATE TRIGGER wallets_generation_truncate AFTER TRUNCATE ON wallets
  FOR EACH STATEMENT EXECUTE FUNCTION keyhold_next_generation();
