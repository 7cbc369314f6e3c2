/**
 * The built client (dist/, as packed) in a real Chromium (the system's, driven by playwright-core;
 * no browser is downloaded), loaded by a page from the same origin as payrail's app with an import
 * map for openapi-fetch and nothing else: it creates a payout (its client_request_id made with the
 * page's crypto), reads it back, walks the list, throws PayrailError on a refusal, and verifies a
 * delivery with Web Crypto, refusing a tampered copy. Without /usr/bin/chromium the test is
 * skipped locally and fails in CI (CI=true), where .ci/run installs it.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ServerType, serve } from '@hono/node-server';
import { type Browser, chromium } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { merchantApp, quickPayout } from './merchant-app.test-support.js';

const chromiumPath = '/usr/bin/chromium';
const runBrowser = existsSync(chromiumPath) || process.env.CI === 'true';
if (!runBrowser) {
  console.warn(
    `[client] ${chromiumPath} is missing: the Chromium test is skipped (apt-get install chromium to run it; in CI it fails instead).`,
  );
}

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const openapiFetch = join(packageDir, 'node_modules/openapi-fetch/dist/index.mjs');

const page = `<!doctype html>
<html><head><meta charset="utf-8"><title>merchant</title>
<script type="importmap">{ "imports": { "openapi-fetch": "/vendor/openapi-fetch.mjs" } }</script>
<script type="module">import * as sdk from '/sdk/index.js'; window.sdk = sdk;</script>
</head><body></body></html>`;

/** The page, the built client and openapi-fetch as static files; everything else the app. */
const site =
  (app: (request: Request) => Promise<Response>) =>
  async (request: Request): Promise<Response> => {
    const { pathname } = new URL(request.url);
    const js = { 'Content-Type': 'text/javascript' };
    if (pathname === '/') return new Response(page, { headers: { 'Content-Type': 'text/html' } });
    if (pathname === '/vendor/openapi-fetch.mjs') {
      return new Response(readFileSync(openapiFetch), { headers: js });
    }
    const built = /^\/sdk\/([a-z.-]+\.js)$/.exec(pathname)?.[1];
    if (built !== undefined) {
      return new Response(readFileSync(join(packageDir, 'dist', built)), { headers: js });
    }
    return app(request);
  };

const listen = (fetch: (request: Request) => Promise<Response>) =>
  new Promise<{ server: ServerType; url: string }>((resolve, reject) => {
    const server = serve({ fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
      resolve({ server, url: `http://127.0.0.1:${info.port}` });
    });
    server.once('error', reject);
  });

/** What the page did, for the test to check. */
interface PageResult {
  readonly status: string;
  readonly clientRequestId: string;
  readonly readBack: string;
  readonly walked: number;
  readonly refusal: readonly [boolean, string, number, string];
  readonly eventType: string;
  readonly tamperedFailure: string;
}

/** Runs in the page: only the web platform and the client it imports. */
const inThePage = async (input: {
  token: string;
  payout: unknown;
  delivery: { text: string; headers: Record<string, string> };
  secret: string;
}): Promise<PageResult> => {
  // The built client, which the page imported as a module (the import map gives openapi-fetch).
  const sdk = Reflect.get(window, 'sdk');
  const client = sdk.createPayrailClient({ baseUrl: location.origin, apiKey: input.token });
  const { payout } = await client.POST('/payment/quickpayout', { body: input.payout });
  const read = await client.GET('/payment/payouts/{payout_id}', {
    params: { path: { payout_id: payout.payout_id } },
  });
  let walked = 0;
  for await (const _ of client.paginate('/payment/payouts', { params: { query: { limit: 1 } } })) {
    walked += 1;
  }
  let refusal: PageResult['refusal'] = [false, '', 0, ''];
  try {
    await client.GET('/payment/payouts/{payout_id}', { params: { path: { payout_id: 'po_x' } } });
  } catch (error) {
    const { key, code, message }: { key: string; code: number; message: string } = Object(error);
    refusal = [error instanceof sdk.PayrailError, key, code, message];
  }
  const event = await sdk.verifyWebhook(input.delivery.text, input.delivery.headers, input.secret);
  let tamperedFailure = 'none';
  try {
    await sdk.verifyWebhook(`${input.delivery.text} `, input.delivery.headers, input.secret);
  } catch (error) {
    ({ failure: tamperedFailure } = Object(error));
  }
  return {
    status: payout.status,
    clientRequestId: payout.client_request_id,
    readBack: read.payout.payout_id === payout.payout_id ? 'same' : 'other',
    walked,
    refusal,
    eventType: event.event_type,
    tamperedFailure,
  };
};

describe.skipIf(!runBrowser)('the built client in Chromium', () => {
  let server: ServerType | undefined;
  let browser: Browser | undefined;
  let url = '';
  let token = '';

  beforeAll(async () => {
    expect(existsSync(chromiumPath), `${chromiumPath} missing (apt-get install chromium)`).toBe(
      true,
    );
    expect(
      existsSync(join(packageDir, 'dist', 'index.js')),
      'the client is not built: run `npx -y pnpm@10 exec turbo run build --filter=@payrail/client`',
    ).toBe(true);
    const app = await merchantApp();
    ({ token } = await app.merchant());
    ({ server, url } = await listen(site(app.fetch)));
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
      headless: true,
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) =>
      server === undefined ? resolve() : server.close(() => resolve()),
    );
  });

  it('calls payrail, pages, refuses and verifies a delivery with the web platform only', async () => {
    if (browser === undefined) throw new Error('no browser');
    const tab = await browser.newPage();
    const problems: string[] = [];
    tab.on('pageerror', (error) => problems.push(error.message));
    await tab.goto(url);
    await tab.waitForFunction('window.sdk !== undefined');
    const secret = `whsec_${btoa('a webhook secret of thirty-two b')}`;
    const text = JSON.stringify({
      event_id: 'evt_1',
      event_type: 'payout.execution.completed',
      business_type: 'payout',
      business_id: 'po_1',
      occurred_at: 1,
      version: 'v1',
      data: { payout_id: 'po_1', status: 'completed' },
    });
    const now = new Date();
    const headers = {
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign('evt_1', now, text),
    };
    const result = await tab.evaluate(inThePage, {
      token,
      payout: quickPayout(1),
      delivery: { text, headers },
      secret,
    });
    expect(result).toEqual({
      status: 'pending_review',
      clientRequestId: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-/),
      readBack: 'same',
      walked: 1,
      refusal: [true, 'payout_not_found', 65, 'payout not found'],
      eventType: 'payout.execution.completed',
      tamperedFailure: 'signature',
    });
    expect(problems).toEqual([]);
  }, 60_000);
});
