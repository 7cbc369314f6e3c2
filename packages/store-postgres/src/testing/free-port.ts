/**
 * A port of 127.0.0.1 that nothing listens on now: taken from the system, then given back. For
 * a server a test starts on it (PgBouncer, a private cluster, a relay) or a host that must
 * refuse connections; another process may take it meanwhile, which tests accept.
 */
import { createServer } from 'node:net';

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
