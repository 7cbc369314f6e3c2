/**
 * PAYRAIL_INSPECT's sender (ADR 0049): XState inspection events to an inspector relay over a
 * WebSocket that comes back after the relay went away. `@statelyai/inspect`'s own
 * `createWebSocketInspector` (0.7.2) retries only a connection that failed to open: once an open
 * one closes it never connects again, and it sends its first 200 deferred events again at every
 * open. This keeps `@statelyai/inspect`'s `createInspector` (what turns XState's inspection events
 * into the inspector's) and replaces only its WebSocket adapter.
 *
 * - While the relay is away the last `keep` events wait (the oldest are dropped first); once it is
 *   back they are sent, in the order they were told, before any later one.
 * - Reconnects with a backoff that starts at `firstRetryMs` and doubles up to `longestRetryMs`,
 *   for as long as the relay stays away.
 * - A relay that restarted has forgotten every actor, so each connection is told an actor
 *   (`@xstate.actor`, with its last sent snapshot, its parent first) before the first event of
 *   it that connection carries. The last `actorLimit` actors are remembered for this.
 * - Nothing here blocks or throws into the engine: `createInspector` does its work after the unit
 *   of work (a timer), and a failure here costs an event, never a decision.
 */
import {
  createInspector,
  type StatelyActorEvent,
  type StatelyInspectionEvent,
} from '@statelyai/inspect';
import { WebSocket } from 'ws';

export interface InspectorSenderOptions {
  /** The relay, `ws://` or `wss://`. */
  readonly url: string;
  /** Events kept while the relay is away; default 200 (what the relay itself replays). */
  readonly keep?: number;
  /** The first wait before connecting again; default 100 ms, doubled at each failure. */
  readonly firstRetryMs?: number;
  /** The longest wait between attempts; default 2,000 ms. */
  readonly longestRetryMs?: number;
  /** Actors remembered to tell a new connection; default 10,000 (as many as the engine). */
  readonly actorLimit?: number;
  /** Where the relay's going and coming back is said (leveled log records in `main`); never a credential. */
  readonly log?: (line: string) => void;
}

/** What `createInspector` takes (`@statelyai/inspect` does not export its `Adapter`). */
interface RelayAdapter {
  start(): void;
  stop(): void;
  send(event: StatelyInspectionEvent): void;
}

/**
 * `@statelyai/inspect`'s inspector over the reconnecting adapter: give `inspect` to
 * `createPayrail({ inspect })` or `createEngine({ inspect })`; `stop()` closes the connection.
 */
export type InspectorSender = ReturnType<typeof createInspector<RelayAdapter>>;

/** The relay as log lines name it: no user, password or query. */
const relayName = (url: string): string => {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch {
    return 'the inspector relay';
  }
};

const serialized = (event: StatelyInspectionEvent): string | undefined => {
  try {
    return JSON.stringify(event);
  } catch {
    return undefined;
  }
};

/** A plain copy (a live snapshot carries its machine), or the value when it has none. */
const plain = <T>(value: T): T => {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? value : JSON.parse(text);
  } catch {
    return value;
  }
};

/**
 * The actors a connection must know before their events: each actor's announcement, its
 * machine's definition kept once per machine, and the snapshot last sent of it.
 */
const actorBook = (limit: number) => {
  const actors = new Map<string, StatelyActorEvent>();
  const definitions = new Map<string, string>();
  const keepActor = (sessionId: string, actor: StatelyActorEvent): void => {
    actors.delete(sessionId);
    actors.set(sessionId, actor);
    if (actors.size > limit) {
      const oldest = actors.keys().next().value;
      if (oldest !== undefined) actors.delete(oldest);
    }
  };
  return {
    remember: (event: StatelyActorEvent): void => {
      if (event.definition !== undefined) definitions.set(event.name, event.definition);
      keepActor(event.sessionId, {
        ...event,
        definition: undefined,
        snapshot: plain(event.snapshot),
      });
    },
    sent: (event: StatelyInspectionEvent): void => {
      const actor = actors.get(event.sessionId);
      if (actor !== undefined && event.type === '@xstate.snapshot') {
        keepActor(event.sessionId, { ...actor, snapshot: event.snapshot });
      }
    },
    announcement: (sessionId: string): StatelyActorEvent | undefined => {
      const actor = actors.get(sessionId);
      return actor === undefined
        ? undefined
        : { ...actor, definition: definitions.get(actor.name) };
    },
    limit,
  };
};

type ActorBook = ReturnType<typeof actorBook>;

/**
 * What may wait in a connection's send buffer: a relay that is connected but reads nothing (a
 * stopped process) must not grow payrail's memory; past this, events are dropped for it.
 */
const maxBufferedBytes = 8 * 1024 * 1024;

/** One open connection: it tells each actor before its first event, its parent first. */
const connection = (socket: WebSocket, book: ActorBook) => {
  const told = new Set<string>();
  const write = (event: StatelyInspectionEvent): void => {
    const text = serialized(event);
    if (text !== undefined && socket.bufferedAmount < maxBufferedBytes) socket.send(text);
  };
  const introduce = (sessionId: string | undefined, depth: number): void => {
    if (sessionId === undefined || told.has(sessionId) || depth > 16) return;
    const actor = book.announcement(sessionId);
    if (actor === undefined) return;
    told.add(sessionId);
    introduce(actor.parentId, depth + 1);
    write(actor);
  };
  return {
    transmit: (event: StatelyInspectionEvent): void => {
      if (told.size > book.limit) told.clear();
      if (event.type === '@xstate.actor') {
        introduce(event.parentId, 1);
        told.add(event.sessionId);
      } else {
        introduce(event.sessionId, 0);
      }
      write(event);
      book.sent(event);
    },
  };
};

type Connection = ReturnType<typeof connection>;

/** The events told while no connection is open (the last `keep`), and what is said of them. */
const waitingRoom = (keep: number, say: (line: string) => void) => {
  const waiting: StatelyInspectionEvent[] = [];
  let dropped = 0;
  let away = false;
  return {
    add: (event: StatelyInspectionEvent): void => {
      waiting.push(event);
      if (waiting.length > keep) {
        waiting.shift();
        dropped += 1;
      }
    },
    wentAway: (): void => {
      if (away) return;
      away = true;
      say(`is away; keeping the last ${keep} events until it is back`);
    },
    /** Hands every waiting event, oldest first, to `open`. */
    release: (open: Connection): void => {
      const backlog = waiting.splice(0);
      for (const event of backlog) open.transmit(event);
      if (away) {
        const lost = dropped === 0 ? '' : ` (${dropped} older ones were dropped)`;
        say(`is back: sent the ${backlog.length} events that waited${lost}`);
      }
      away = false;
      dropped = 0;
    },
  };
};

/** The WebSocket adapter that comes back: connect, wait with backoff, send what waited. */
const reconnectingAdapter = (options: InspectorSenderOptions): RelayAdapter => {
  const first = options.firstRetryMs ?? 100;
  const longest = options.longestRetryMs ?? 2_000;
  const name = relayName(options.url);
  const room = waitingRoom(options.keep ?? 200, (line) =>
    options.log?.(`inspector relay ${name} ${line}`),
  );
  const book = actorBook(options.actorLimit ?? 10_000);
  let socket: WebSocket | undefined;
  let open: Connection | undefined;
  let failures = 0;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;

  const connect = (): void => {
    retry = undefined;
    if (stopped) return;
    let ws: WebSocket;
    try {
      ws = new WebSocket(options.url, { handshakeTimeout: 5_000 });
    } catch {
      room.wentAway();
      return;
    }
    socket = ws;
    ws.on('open', () => {
      failures = 0;
      const connected = connection(ws, book);
      room.release(connected);
      open = connected;
    });
    // Every failure, of a connection or of its opening, ends in 'close'.
    ws.on('error', () => {});
    ws.on('close', () => {
      if (socket !== ws) return;
      socket = undefined;
      open = undefined;
      if (stopped) return;
      room.wentAway();
      retry = setTimeout(connect, Math.min(longest, first * 2 ** failures));
      retry.unref();
      failures += 1;
    });
  };

  return {
    start: connect,
    stop: () => {
      stopped = true;
      if (retry !== undefined) clearTimeout(retry);
      const ws = socket;
      socket = undefined;
      open = undefined;
      ws?.close();
      // A relay that does not answer the closing handshake is cut.
      setTimeout(() => ws?.terminate(), 1_000).unref();
    },
    send: (event) => {
      if (stopped) return;
      try {
        if (event.type === '@xstate.actor') book.remember(event);
        // A closing connection's sends would be lost: its events wait for the next one.
        if (open !== undefined && socket?.readyState === WebSocket.OPEN) open.transmit(event);
        else room.add(event);
      } catch {
        // Watching must never break the work watched.
      }
    },
  };
};

/**
 * An inspector that sends to the relay at `url` and keeps sending across its restarts: what the
 * server uses for PAYRAIL_INSPECT, and what a host embedding payrail may pass as `inspect`.
 * @public
 */
export const createInspectorSender = (options: InspectorSenderOptions): InspectorSender => {
  const inspector = createInspector(reconnectingAdapter(options));
  inspector.start();
  return inspector;
};
