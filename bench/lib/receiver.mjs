/**
 * A merchant's endpoint in the benchmark's own process: node:http on a loopback port, answering
 * every request at once with 200 `{}` and remembering when each arrived and what it carried
 * (the envelope's event_type, business_id and, for an order, its status). The server reaches it
 * only with PAYRAIL_ALLOW_INSECURE_WEBHOOKS=1 (sandbox: http and loopback targets let through).
 */
import http from 'node:http';
import { onCleanup } from './run-context.mjs';

const orderStatusOf = (envelope) => envelope?.data?.order?.status ?? envelope?.data?.status;

export const startReceiver = async () => {
  const arrivals = [];
  const byType = new Map();
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const at = Date.now();
      let envelope;
      try {
        envelope = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        envelope = undefined;
      }
      const type = envelope?.event_type ?? envelope?.type ?? 'unknown';
      byType.set(type, (byType.get(type) ?? 0) + 1);
      arrivals.push({
        at,
        type,
        eventId: req.headers['webhook-id'] ?? envelope?.event_id,
        businessId: envelope?.business_id ?? envelope?.payout_id,
        status: orderStatusOf(envelope),
      });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 2 });
      res.end('{}');
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const stop = onCleanup('stop the webhook receiver', async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    /** Requests received so far, every type. */
    count: () => arrivals.length,
    /** Distinct events (webhook-id) of one type received so far: a redelivery counts once. */
    distinctOf: (type) =>
      new Set(arrivals.filter((a) => a.type === type).map((a) => a.eventId)).size,
    types: () => Object.fromEntries(byType),
    arrivals: () => arrivals,
    stop,
  };
};
