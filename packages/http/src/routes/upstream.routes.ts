/**
 * `POST /upstream/acquiring/{provider}` (docs/spec/decisions.md §4): upstream providers report payments to
 * deposit addresses. No API key: the engine checks the caller's address against the provider's
 * allowed sources (the client address as for merchant routes: the socket's, or with trusted
 * proxies the `X-Forwarded-For` hop), then the provider verifies its signature over the raw body
 * (`unauthorized` otherwise, ADR 0032), and only a JSON body is read. The body is the provider's
 * own format (the built-in `sandbox` provider's is in docs/engine.md), so no codec of ours
 * describes it.
 */
import { UpstreamEventsAnswer } from '@payrail/core';
import { type UpstreamRoute, upstreamRoute } from './route.js';

export const upstreamRoutes: readonly UpstreamRoute[] = [
  upstreamRoute({
    scope: 'upstream',
    method: 'post',
    path: '/upstream/acquiring/{provider}',
    operationId: 'receiveUpstreamAcquiringEvents',
    summary:
      "A provider's payment events for deposit addresses, in the provider's own format; all of a request are applied together, or none",
    tag: 'upstream',
    errorGroups: ['upstream'],
    errors: ['unauthorized'],
    response: {
      description: 'what each event did, in the order sent',
      codec: UpstreamEventsAnswer,
    },
    run: (engine, r) =>
      engine.upstream.receive(r.param('provider'), {
        ip: r.ip,
        body: r.body,
        headers: r.headers,
      }),
  }),
];
