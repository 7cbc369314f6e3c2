/**
 * Named operators through HTTP on the real engine (issue 19, ADR 0039 and 0040): an operator's
 * own credential opens `/admin` as that operator, its role decides what it may do (`forbidden`
 * otherwise), a disabled operator or a rotated credential is `unauthorized`, the admin token
 * steps back to reading and managing operators once an admin operator is active, and every act
 * is in the audit trail under who did it, with the request's id and the client's address.
 */
import { describe, expect, it } from 'vitest';
import { type EngineApp, engineApp, operatorToken, refusalOf } from './engine-app.test-support.js';
import { storesUnderTest } from './stores.test-support.js';

const refused = (status: number, message: string) => ({
  status,
  code: status === 404 ? 65 : 61,
  message,
  data: null,
});

/** A new operator of `role`, made by the admin token: its id and credential. */
const addOperator = async (h: EngineApp, name: string, role: string) => {
  const { operator } = await h.admin('POST', '/admin/operators', { name, role });
  return { id: operator.operator_id as string, token: operator.token as string };
};

describe('named operators through HTTP (real engine)', () => {
  it('act as themselves: the audit trail names the operator, the request id and the address', async () => {
    const h = engineApp();
    await h.seedCatalogue();
    const alice = await addOperator(h, 'alice', 'admin');
    const created = await h.call(
      'POST',
      '/admin/merchants',
      { Authorization: `Bearer ${alice.token}`, 'X-Request-Id': 'alice-req-1' },
      { name: 'Acme' },
      { incoming: { socket: { remoteAddress: '198.51.100.7' } } },
    );
    expect(created.body).toMatchObject({ code: 0 });
    expect(created.headers.get('x-request-id')).toBe('alice-req-1');
    const trail = await h.as(alice.token).get('/admin/audit?action=merchant.create');
    expect(trail.body.data.items).toEqual([
      expect.objectContaining({
        actor_type: 'operator',
        actor_id: alice.id,
        actor_name: 'alice',
        action: 'merchant.create',
        object_type: 'merchant',
        object_id: created.body.data.merchant.merchant_id,
        request_id: 'alice-req-1',
        client_ip: '198.51.100.7',
      }),
    ]);
  });

  it('answer forbidden where their role does not reach, and record nothing', async () => {
    const h = engineApp();
    await h.seedCatalogue();
    const m = await h.merchant('Acme');
    const viewer = h.as((await addOperator(h, 'vera', 'viewer')).token);
    const before = (await viewer.get('/admin/audit')).body.data.total;
    expect((await viewer.get('/admin/routes')).body).toMatchObject({ code: 0 });
    expect((await viewer.get(`/admin/accounts/${m.accountId}/api-keys`)).body).toMatchObject({
      code: 0,
    });
    for (const answer of [
      await viewer.post('/admin/merchants', { name: 'Other' }),
      await viewer.post(`/admin/accounts/${m.accountId}/credit`, {
        currency: 'USD',
        amount: '10.00',
      }),
      await viewer.patch(`/admin/accounts/${m.accountId}`, { status: 'frozen' }),
      await viewer.post('/admin/operators', { name: 'mallory', role: 'admin' }),
    ]) {
      expect(refusalOf(answer)).toEqual(refused(403, 'forbidden'));
    }
    expect((await viewer.get('/admin/audit')).body.data.total).toBe(before);
  });

  it('cannot change their own role or status', async () => {
    const h = engineApp();
    const alice = await addOperator(h, 'alice', 'admin');
    const answer = await h
      .as(alice.token)
      .patch(`/admin/operators/${alice.id}`, { role: 'viewer' });
    expect(refusalOf(answer)).toEqual(refused(403, 'forbidden'));
  });

  it('are unauthorized once disabled, with a rotated-away credential, or after it expired', async () => {
    const h = engineApp();
    const carol = await addOperator(h, 'carol', 'viewer');
    const dave = await addOperator(h, 'dave', 'viewer');
    expect((await h.as(carol.token).get('/admin/operators')).status).toBe(200);

    await h.admin('PATCH', `/admin/operators/${carol.id}`, { status: 'disabled' });
    expect(refusalOf(await h.as(carol.token).get('/admin/operators'))).toEqual(
      refused(401, 'unauthorized'),
    );
    await h.admin('PATCH', `/admin/operators/${carol.id}`, { status: 'active' });
    expect((await h.as(carol.token).get('/admin/operators')).status).toBe(200);

    const { operator } = await h.admin('POST', `/admin/operators/${dave.id}/rotate`);
    expect(refusalOf(await h.as(dave.token).get('/admin/operators'))).toEqual(
      refused(401, 'unauthorized'),
    );
    expect((await h.as(operator.token).get('/admin/operators')).status).toBe(200);

    h.clock.advance(91 * 24 * 3600);
    expect(refusalOf(await h.as(carol.token).get('/admin/operators'))).toEqual(
      refused(401, 'unauthorized'),
    );
  });

  it('are no merchant keys, and a merchant key is no operator', async () => {
    const h = engineApp();
    const m = await h.merchant('Acme');
    const alice = await addOperator(h, 'alice', 'admin');
    expect(refusalOf(await h.as(alice.token).get('/payment/account'))).toMatchObject({
      status: 401,
      code: 61,
    });
    expect(refusalOf(await h.as(m.token).get('/admin/operators'))).toEqual(
      refused(401, 'unauthorized'),
    );
  });

  it('once an admin operator is active, the admin token only reads and manages operators', async () => {
    const h = engineApp();
    const alice = await addOperator(h, 'alice', 'admin');
    const bootstrap = h.as(operatorToken);
    expect(refusalOf(await bootstrap.post('/admin/merchants', { name: 'Acme' }))).toEqual(
      refused(403, 'forbidden'),
    );
    expect((await bootstrap.get('/admin/routes')).status).toBe(200);
    expect((await bootstrap.get('/admin/audit')).status).toBe(200);
    // A lost admin credential is recovered with the admin token: rotate it, or disable the admin.
    expect((await bootstrap.post(`/admin/operators/${alice.id}/rotate`)).status).toBe(200);
    expect(
      (await bootstrap.patch(`/admin/operators/${alice.id}`, { status: 'disabled' })).status,
    ).toBe(200);
    // With no active admin, the admin token does everything again.
    expect((await bootstrap.post('/admin/merchants', { name: 'Acme' })).body).toMatchObject({
      code: 0,
    });
  });

  it('answers operator_id not found for an unknown operator', async () => {
    const h = engineApp();
    for (const answer of [
      await h.as(operatorToken).patch('/admin/operators/opr_999', { status: 'disabled' }),
      await h.as(operatorToken).post('/admin/operators/opr_999/rotate'),
    ]) {
      expect(refusalOf(answer)).toEqual(refused(404, 'operator_id not found'));
    }
  });
});

describe.each(storesUnderTest)('operators on $name', (under) => {
  it('two adds of one name at once: one operator, and the other answer is `invalid name`, never a 500', async () => {
    const h = engineApp({ store: await under.open() });
    const adminHeaders = { Authorization: `Bearer ${operatorToken}` };
    for (let round = 0; round < 5; round += 1) {
      const name = `twin-${round}`;
      const answers = await Promise.all(
        [1, 2, 3].map(() =>
          h.call('POST', '/admin/operators', adminHeaders, { name, role: 'viewer' }),
        ),
      );
      expect(answers.map((a) => a.body.message).sort()).toEqual([
        'invalid name',
        'invalid name',
        'success',
      ]);
    }
    const listed = await h.call('GET', '/admin/operators?limit=100', adminHeaders);
    expect(listed.body.data.items).toHaveLength(5);
  });
});
