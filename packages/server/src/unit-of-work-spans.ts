/**
 * OpenTelemetry spans of the engine's units of work (docs/observability.md): one span per run,
 * named after its use case (`payout.create`, `timer.order.expiry`, `other`), with its outcome,
 * a child of the request's span when the host's context manager carries it. Through
 * `@opentelemetry/api` only: a no-op until the host registers a tracer provider.
 */
import { SpanStatusCode, trace } from '@opentelemetry/api';
import type { EngineObserver } from '@payrail/engine';

const tracerName = '@payrail/engine';

export const unitOfWorkSpans: EngineObserver = {
  unitOfWorkStarted: (useCase) => {
    const span = trace.getTracer(tracerName).startSpan(useCase, {
      attributes: { 'payrail.use_case': useCase },
    });
    return ({ outcome }) => {
      span.setAttribute('payrail.unit_of_work.outcome', outcome);
      if (outcome === 'failed') span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    };
  },
};

/** Both observers, each told everything. */
export const bothObservers = (first: EngineObserver, second: EngineObserver): EngineObserver => ({
  unitOfWorkStarted: (useCase) => {
    const ends = [first, second].map((observer) => observer.unitOfWorkStarted?.(useCase));
    return (ended) => {
      for (const end of ends) end?.(ended);
    };
  },
  transitionCommitted: (transition) => {
    first.transitionCommitted?.(transition);
    second.transitionCommitted?.(transition);
  },
  timerFired: (fired) => {
    first.timerFired?.(fired);
    second.timerFired?.(fired);
  },
});
