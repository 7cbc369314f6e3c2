/**
 * The audit trail (issue 19, ADR 0040): every act of an operator or an API key that changes
 * state writes one `AuditRecord` in the unit of work of the act itself, so there is no act
 * without its record and no record without its act: the record is the unit of work's last write,
 * and a unit of work that throws (a refusal, a conflict, a crash) keeps neither.
 *
 * The engine's face declares the acts (`engine.wiring.ts`): each state-changing use case runs inside
 * `withinAct`, which names who acts and what the act is. The store the use cases write through
 * (`auditingStore`, installed by `createEngine`) watches what a unit of work writes and, when it
 * wrote anything, adds the record naming the object the act changed: the first record it wrote
 * of the act's object type (else the first it wrote at all), and that record's account. A use
 * case that writes nothing (a replayed create, a refusal) records nothing. Only the first unit of
 * work of an act that commits a write is recorded: an act is one record.
 *
 * The act travels in an `AsyncLocalStorage` rather than through every use case's parameters:
 * the use cases, their helpers and the stores stay as they are, and the trail cannot be skipped
 * by a use case that forgets to pass it on.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  type ActorType,
  type AuditRecord,
  type Clock,
  type CollectionName,
  type Collections,
  collectionSpecs,
  type LooseCollectionSpec,
  type Store,
  type StoreTransaction,
} from '@payrail/core';

/** Who acts, and from which request. */
export interface Actor {
  readonly actor_type: ActorType;
  /** An operator id (`bootstrap` for the configured admin token) or an API key id. */
  readonly actor_id: string;
  /** The operator's name; `null` for an API key. */
  readonly actor_name: string | null;
  readonly request_id?: string | undefined;
  readonly client_ip?: string | undefined;
}

/** One act: its actor, its name, the kind of object it changes and what to add about it. */
export interface Act {
  readonly actor: Actor;
  /** `payout.review`, `api_key.issue`, ... */
  readonly action: string;
  /** The object type the act is about, when its unit of work writes several kinds. */
  readonly objectType?: ObjectType;
  readonly detail?: string | undefined;
}

interface ActState {
  readonly act: Act;
  recorded: boolean;
}

const acts = new AsyncLocalStorage<ActState>();

/** The action of the act in progress (`payout.create`), if any: observers name units of work by it. */
export const currentAction = (): string | undefined => acts.getStore()?.act.action;

/** Runs `work` as `act`: the unit of work it commits first writes the act's record. */
export const withinAct = <T>(act: Act, work: () => Promise<T>): Promise<T> =>
  acts.run({ act, recorded: false }, work);

/** The object type of each collection's records, as the trail names it. */
const objectTypes = {
  merchants: 'merchant',
  accounts: 'account',
  apiKeys: 'api_key',
  payoutMethods: 'payout_method',
  payoutNetworks: 'payout_network',
  payoutRoutes: 'route',
  beneficiaries: 'beneficiary',
  beneficiaryAccounts: 'beneficiary_account',
  payouts: 'payout',
  acquiringOrders: 'acquiring_order',
  acquiringPayments: 'acquiring_payment',
  acquiringRefunds: 'acquiring_refund',
  depositAddresses: 'deposit_address',
  cryptoBatches: 'crypto_batch',
  webhooks: 'webhook',
  webhookDeliveries: 'webhook_delivery',
  deposits: 'deposit',
  withdrawals: 'withdrawal',
  operators: 'operator',
  auditRecords: 'audit_record',
} as const satisfies { readonly [N in CollectionName]: string };

export type ObjectType = (typeof objectTypes)[CollectionName];

interface Written {
  readonly type: ObjectType;
  readonly id: string;
  readonly accountId: string | null;
}

/** What a unit of work wrote, as far as the trail needs it. */
interface Writes {
  readonly objects: Written[];
  /** Ledger postings, outbox messages, timers: writes that name no object of their own. */
  other: boolean;
}

const writtenOf = (name: CollectionName, record: object): Written => {
  const fields = record as Readonly<Record<string, unknown>>;
  const account = fields.account_id;
  return {
    type: objectTypes[name],
    id: String(fields[(collectionSpecs[name] as LooseCollectionSpec).id]),
    accountId: typeof account === 'string' ? account : null,
  };
};

const isCollectionName = (key: PropertyKey): key is CollectionName =>
  typeof key === 'string' && Object.hasOwn(objectTypes, key);

/** The write of each port whose writes name no object: a posting, a message, a timer. */
const writingMethods = { ledger: 'post', outbox: 'enqueue', timers: 'set' } as const;

/** `tx` with every write noted in `writes`; reads pass through untouched. */
const watchedTransaction = (tx: StoreTransaction, writes: Writes): StoreTransaction => {
  const wrapped = new Map<PropertyKey, unknown>();
  const wrap = (key: PropertyKey, target: unknown): unknown => {
    if (isCollectionName(key)) {
      const collection = target as Collections[typeof key];
      return new Proxy(collection, {
        get(collectionTarget, name) {
          const value: unknown = Reflect.get(collectionTarget, name);
          if (typeof value !== 'function') return value;
          if (name !== 'insert' && name !== 'update') return value.bind(collectionTarget);
          return async (record: object) => {
            const saved = (await Reflect.apply(value, collectionTarget, [record])) as object;
            writes.objects.push(writtenOf(key, saved));
            return saved;
          };
        },
      });
    }
    const writing = writingMethods[key as keyof typeof writingMethods];
    if (writing !== undefined) {
      const port = target as object;
      return new Proxy(port, {
        get(portTarget, name) {
          const value: unknown = Reflect.get(portTarget, name);
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            if (name === writing) writes.other = true;
            return Reflect.apply(value, portTarget, args);
          };
        },
      });
    }
    return target;
  };
  return new Proxy(tx, {
    get(target, key) {
      if (!wrapped.has(key)) wrapped.set(key, wrap(key, Reflect.get(target, key)));
      return wrapped.get(key);
    },
  });
};

/** The record of `act` over what its unit of work wrote. */
const recordOf = (
  act: Act,
  writes: Writes,
  audit: { readonly id: string; readonly at: number },
): Omit<AuditRecord, 'version'> => {
  const object =
    writes.objects.find((written) => written.type === act.objectType) ?? writes.objects[0];
  const accountId =
    object?.accountId ?? writes.objects.find((written) => written.accountId !== null)?.accountId;
  const { actor } = act;
  return {
    audit_id: audit.id,
    actor_type: actor.actor_type,
    actor_id: actor.actor_id,
    actor_name: actor.actor_name,
    action: act.action,
    object_type: object?.type ?? null,
    object_id: object?.id ?? null,
    account_id: accountId ?? null,
    detail: act.detail ?? null,
    request_id: actor.request_id ?? null,
    client_ip: actor.client_ip ?? null,
    created_at: audit.at,
    updated_at: audit.at,
  };
};

/**
 * `aud_` + the wall clock in milliseconds (12 hex digits) + 64 random bits: ordered by time
 * within a second (the trail sorts by `created_at`, then id), unguessable, and drawn apart from
 * the engine's id port so that the ids a test expects of its objects do not move.
 */
const auditId = (): string => {
  const random = crypto.getRandomValues(new Uint8Array(8));
  const time = Date.now().toString(16).padStart(12, '0');
  return `aud_${time}${Array.from(random, (b) => b.toString(16).padStart(2, '0')).join('')}`;
};

/**
 * `store`, writing the record of the current act (`withinAct`) in the unit of work that carries
 * it out. Outside an act (timers, the webhook dispatcher's answers, providers' events) units of
 * work run as they are.
 */
export const auditingStore = (store: Store, clock: Clock): Store => ({
  transaction: async (work) => {
    const state = acts.getStore();
    if (state === undefined || state.recorded) return store.transaction(work);
    let recorded = false;
    const result = await store.transaction(async (tx) => {
      // A store may run `work` again after a transient conflict: each run notes its own writes.
      const writes: Writes = { objects: [], other: false };
      const value = await work(watchedTransaction(tx, writes));
      recorded = writes.objects.length > 0 || writes.other;
      if (recorded) {
        const id = auditId();
        await tx.auditRecords.insert(recordOf(state.act, writes, { id, at: clock.now() }));
      }
      return value;
    });
    // Committed: a later unit of work of the same act is not the act again.
    if (recorded) state.recorded = true;
    return result;
  },
  // A read writes nothing, so there is nothing to record.
  ...(store.read === undefined
    ? {}
    : { read: (work) => store.read?.(work) ?? store.transaction(work) }),
  ...(store.onWork === undefined
    ? {}
    : { onWork: (listener: () => void) => store.onWork?.(listener) ?? (() => {}) }),
  claimEnvironment: (environment) => store.claimEnvironment(environment),
  close: () => store.close(),
});
