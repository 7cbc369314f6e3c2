/**
 * Acquiring payment claims (the review of issue 23): a provider's payment id names one transfer,
 * so it binds one order of one account, whichever merchant's address it reached. 0010 keyed
 * `acquiring_payments` by `(id, account_id)`, which let two units of work racing on one payment
 * id under two accounts both bind it (and both credit `<payment_id>:pay_in`, the ledger's
 * journals being keyed by account too). The id moves to the reference table
 * `acquiring_payment_claims`, claimed in the same statement as the payment's row, as 0010 did
 * for deposit addresses.
 *
 * The bindings already stored are claimed here. A payment id already bound under two accounts
 * (only a race since 0010 could have written it) stops the migration with a unique violation
 * naming it: which account keeps the credit is an operator's decision, not a migration's.
 */
import type { Migration } from './migration.js';

export const acquiringPaymentClaims: Migration = {
  id: '0011-acquiring-payment-claims',
  sql: `
DO $$
DECLARE
  twice TEXT;
BEGIN
  SELECT string_agg(id, ', ' ORDER BY id) INTO twice
    FROM (SELECT id FROM acquiring_payments GROUP BY id HAVING count(*) > 1) bound;
  IF twice IS NOT NULL THEN
    RAISE EXCEPTION 'payment ids bound under more than one account: %', twice
      USING HINT = 'keep one binding (and its pay_in credit) per payment id, then migrate again';
  END IF;
END;
$$;
CREATE TABLE acquiring_payment_claims (
  payment_id TEXT COLLATE "C" NOT NULL PRIMARY KEY,
  account_id TEXT NOT NULL
);
INSERT INTO acquiring_payment_claims (payment_id, account_id)
SELECT id, account_id FROM acquiring_payments;
`,
};
