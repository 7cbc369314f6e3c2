import { type ChainNetwork, chainNetworks, Decimal, payTokenIds, payTokens } from '@payrail/core';
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { evmAddress, solanaAddress, tronAddress } from './sandbox.test-support.js';
import {
  parseSandboxUpstreamEvents,
  sandboxUpstreamStatuses,
} from './sandbox-acquiring.provider.js';

const addressOn = (network: ChainNetwork): string =>
  ({ evm: evmAddress, tron: tronAddress, solana: solanaAddress })[
    chainNetworks[network].addressFormat
  ];

const kinds = {
  processing: 'detected',
  confirming: 'confirming',
  confirmed: 'confirmed',
  failed: 'failed',
};

/** A well-formed sandbox event, and what it must normalise into. */
const validEvent = fc
  .record({
    token: fc.constantFrom(...payTokenIds),
    micros: fc.bigInt({ min: 1n, max: 10n ** 15n }),
    status: fc.constantFrom(...sandboxUpstreamStatuses),
    tx_hash: fc.stringMatching(/^[\x21-\x7e]{1,128}$/),
    confirmations: fc.option(fc.nat(), { nil: undefined }),
    payment_id: fc.option(fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/), { nil: undefined }),
  })
  .map(({ token, micros, status, tx_hash, confirmations, payment_id }) => {
    const network = payTokens[token].network;
    const amount = new Decimal(micros.toString()).dividedBy(1_000_000).toFixed();
    return {
      wire: {
        network,
        address: addressOn(network),
        token_id: token,
        tx_hash,
        amount,
        status,
        ...(confirmations === undefined ? {} : { confirmations }),
        ...(payment_id === undefined ? {} : { payment_id }),
      },
      micros,
    };
  });

/** Values no field of an event accepts, whatever the field. */
const garbage = fc.constantFrom<unknown>('', ' ', -1, 1.5, true, [], {}, 'x y', '🙂');

describe('the sandbox payload, as a property', () => {
  it('never throws: any JSON answers events or one of the two payload messages', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.record({ events: fc.jsonValue() })), (body) => {
        const result = parseSandboxUpstreamEvents(body);
        if (E.isRight(result)) expect(result.right.length).toBeGreaterThan(0);
        else
          expect([
            'empty upstream webhook event',
            'invalid upstream merchant deposit payload',
          ]).toContain(result.left.message);
      }),
    );
  });

  it('normalises every well-formed event, keeping its facts', () => {
    fc.assert(
      fc.property(fc.array(validEvent, { minLength: 1, maxLength: 5 }), (events) => {
        const result = parseSandboxUpstreamEvents({ events: events.map((e) => e.wire) });
        if (E.isLeft(result)) throw new Error(result.left.message);
        expect(result.right).toHaveLength(events.length);
        result.right.forEach((event, i) => {
          const { wire, micros } = events[i] ?? expect.unreachable();
          expect(event.network).toBe(wire.network);
          expect(event.address).toBe(wire.address);
          expect(event.token_id).toBe(wire.token_id);
          expect(event.kind).toBe(kinds[wire.status]);
          expect(event.amount).toMatch(/^\d+\.\d{6}$/);
          expect(BigInt(event.amount.replace('.', ''))).toBe(micros);
          if (wire.confirmations !== undefined)
            expect(event.confirmations).toBe(wire.confirmations);
          if (wire.payment_id !== undefined) expect(event.payment_id).toBe(wire.payment_id);
          expect(event.payment_id.length).toBeGreaterThan(0);
          expect(event.tx_hash.toLowerCase()).toBe(wire.tx_hash.toLowerCase());
        });
      }),
    );
  });

  it('refuses the whole payload when one field of one event is spoilt', () => {
    fc.assert(
      fc.property(
        fc.array(validEvent, { minLength: 1, maxLength: 4 }),
        fc.nat(),
        fc.constantFrom('network', 'address', 'token_id', 'tx_hash', 'amount', 'status'),
        garbage,
        (events, pick, field, value) => {
          const wires: Record<string, unknown>[] = events.map((e) => ({ ...e.wire }));
          const spoilt = wires[pick % wires.length] ?? expect.unreachable();
          spoilt[field] = value;
          expect(parseSandboxUpstreamEvents({ events: wires })).toEqual(
            E.left(
              expect.objectContaining({ message: 'invalid upstream merchant deposit payload' }),
            ),
          );
        },
      ),
    );
  });
});
