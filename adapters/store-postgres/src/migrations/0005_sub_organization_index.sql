-- Keyhold store, version 5: sub-organizations are listed by parent (list_suborgs, whoami by a
-- sub-organization's key at the parent, deleting a parent's children): an index instead of a
-- scan of every organization, in the order listChildren returns them.

CREATE INDEX organizations_parent_idx
  ON organizations (parent_organization_id, created_at, organization_id)
  WHERE parent_organization_id IS NOT NULL;
