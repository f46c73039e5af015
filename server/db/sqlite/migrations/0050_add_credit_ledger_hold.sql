-- A charge records the hold it settles, and a hold settles at most once: the credit store may live in
-- another database than the assets (issue 16), so the charge is written after the asset in a separate
-- step, and a retried settle must not charge twice.
ALTER TABLE credit_ledger ADD COLUMN hold_id TEXT;
CREATE UNIQUE INDEX credit_ledger_hold ON credit_ledger(hold_id) WHERE hold_id IS NOT NULL;
