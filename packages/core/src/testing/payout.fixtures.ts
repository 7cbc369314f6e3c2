/** A valid payout input, for starting the payout machine in tests and benchmarks. */
import type { PayoutInput } from '../machines/payout.machine.js';

/** The creation time of `payoutInput()`, Unix seconds; later events add to it. */
export const T0 = 1_700_000_000;

/**
 * The input of a WALLETA payout of USD 100.00 (fee 1.50, merchant pays), submitted on creation,
 * verification and auto approval off; `overrides` replace any field.
 */
export const payoutInput = (overrides: Partial<PayoutInput> = {}): PayoutInput => ({
  payout_id: 'po_1',
  account_id: 'acc_1',
  reference: 'ref-1',
  client_request_id: 'req-1',
  currency: 'USD',
  amount: '100.00',
  fee: '1.50',
  fee_bearer: 'merchant',
  notify_url: 'https://merchant.example/payouts',
  beneficiary_id: 'ben_1',
  beneficiary_account_id: 'bacc_1',
  verification_enabled: false,
  auto_approve: false,
  verification: {
    beneficiary_name: 'Ada Lovelace',
    network_code: 'WALLETA',
    account_type: null,
    beneficiary_account: {
      network_code: 'WALLETA',
      display_name: 'main',
      fields_masked: { walleta_email: 'a***@example.com' },
    },
  },
  submit: true,
  at: T0,
  ...overrides,
});
