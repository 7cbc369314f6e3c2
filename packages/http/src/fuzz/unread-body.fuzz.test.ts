/**
 * A body sent to a route that reads none (submit, cancel, delete, rotate...) must not cost the
 * client its kept-alive connection: Node closes a connection whose request body was left unread,
 * and the next request on it failed with `socket hang up` and no answer (found by fuzzing the
 * HTTP edge over a socket, issue 13). The app reads such a body to its end and drops it; a body
 * left unread because the request was refused first is answered with `Connection: close`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineApp, quickPayout } from '../engine-app.test-support.js';
import { serve } from '../serve.js';
import { overSocket } from './run.test-support.js';

describe('a body sent to a route that reads none, over a kept-alive connection', () => {
  let server: Awaited<ReturnType<typeof serve>>;
  let token = '';
  let payoutId = '';

  beforeAll(async () => {
    const h = engineApp({ addressLimit: { failedAuthentications: 0, requestsPerSecond: 0 } });
    await h.seedCatalogue();
    const m = await h.merchant('Acme');
    token = m.token;
    await h.admin('POST', `/admin/accounts/${m.accountId}/credit`, {
      currency: 'USD',
      amount: '100.00',
    });
    const { body } = await h
      .as(token)
      .post('/payment/quickpayout', { ...quickPayout('R1'), submit: false });
    payoutId = body.data.payout.payout_id;
    server = await serve(h.app, { port: 0, hostname: '127.0.0.1' });
  });
  afterAll(() => server.close());

  it('answers it, and answers the next request on the same connection', async () => {
    const send = overSocket(new URL(server.url));
    const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
    const unread = `{"pad":"${'x'.repeat(900_000)}"}`;
    const first = await send({
      method: 'POST',
      path: `/payment/payouts/${payoutId}/submit`,
      headers,
      body: unread,
      kind: 'unread body',
    });
    expect(first.status).toBe(200);
    const second = await send({
      method: 'POST',
      path: `/payment/payouts/${payoutId}/cancel`,
      headers,
      body: undefined,
      kind: 'next request',
    });
    expect(JSON.parse(second.text)).toMatchObject({
      code: 0,
      data: { payout: { status: 'cancelled' } },
    });
  });

  it('a body refused before it is read (a bad credential) closes the connection with `Connection: close`, and the next request is answered', async () => {
    const send = overSocket(new URL(server.url));
    const first = await send({
      method: 'POST',
      path: '/payment/webhooks',
      headers: { Authorization: 'Bearer not-a-token', 'Content-Type': 'application/json' },
      body: `{"pad":"${'x'.repeat(900_000)}"}`,
      kind: 'unread body',
    });
    expect(first.status).toBe(401);
    expect(first.connection).toBe('close');
    const second = await send({
      method: 'GET',
      path: '/payment/account',
      headers: { Authorization: `Bearer ${token}` },
      body: undefined,
      kind: 'next request',
    });
    expect(JSON.parse(second.text)).toMatchObject({ code: 0 });
  });
});
