/**
 * An embedded payrail on the memory store for a test file, stopped after each test: the
 * readiness and metrics tests share it.
 */
import { createMemoryStore } from '@payrail/store-memory';
import { afterEach } from 'vitest';
import { createPayrail, type Payrail, type PayrailOptions } from './create-payrail.js';

const testKeySecret = 'a secret of thirty-two bytes, ok';

/** `embed(options)` starts one; every one started is stopped after the test. */
export const embeddedPayrails = (adminToken: string) => {
  const running: Payrail[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((payrail) => payrail.stop()));
  });
  return async (options: Partial<PayrailOptions> = {}): Promise<Payrail> => {
    const payrail = await createPayrail({
      store: createMemoryStore(),
      environment: 'sandbox',
      keySecret: testKeySecret,
      adminToken,
      log: () => undefined,
      ...options,
    });
    running.push(payrail);
    return payrail;
  };
};
