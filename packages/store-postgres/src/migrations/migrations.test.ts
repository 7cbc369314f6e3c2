/**
 * A released migration never changes: the SQL each one runs is pinned here by its digest, so a
 * refactor of how their text is built (`collection-table.ts`) cannot change what a schema gets.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { migrations } from './migrate.js';

const released: Readonly<Record<string, string>> = {
  '0001-init': '8f7e053ef082153ccaadb7ff6306e9af4ded4d5fd78ed6848931b77c4689814f',
  '0002-ledger-posting-order': 'ff66509e59adeab0314303cb7f0383e62d69c9382702e696aa3114ccd8333853',
  '0003-delivery-business-object':
    'd50d60375ec38eff0033ebcb6d0bc2ad0ab4c72567ff48ee5c70fa925986239f',
  '0004-ledger-records': 'dd8f65b0caf668e9d19e5100922d0f185a021adcdec99f0d74f5863e38317425',
  '0005-ledger-entry-counts': '762c52d662e72a175b4d01af456e8e7c40e77916814a663c6ba8e41ee14abffe',
  '0006-store-environment': '3be79cc4bb7a267d6af804b83e2500264e0675a351e7f88c875aece47e4536ec',
  '0007-operators-and-audit': '896fbb36ef163e5609b61aab8ed83132b29fb0b3a90bc3df8df1b3a1c4ef1fcc',
  '0008-acquiring-payments': 'c5f95891dc377eed03e67b34d65fde33c8b9cbdb9b403784d1e05391b79d1cf5',
  '0009-acquiring-refunds': '3a2c25e3a3b40ec0df4b89f2f1b63b73094f4fdf223df9778f8bc6ec54c0eb53',
  '0010-shard-ready': '8d14542a3807f78c6ba3835cbcda3863a7b0aac41187dfba5fd0270852121443',
  '0011-acquiring-payment-claims':
    '2464ee22bd03bc832f314f9106ebb003d2de5507c38985c59978e1d94543e0e9',
};

describe('released migrations', () => {
  it.each(migrations.filter((migration) => migration.id in released))(
    '$id runs exactly the SQL it was released with',
    (migration) => {
      expect(createHash('sha256').update(migration.sql).digest('hex')).toBe(released[migration.id]);
    },
  );
});
