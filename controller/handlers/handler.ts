/**
 * What a handler declares about itself, so the controller wires it without
 * knowing it: the kind it reconciles, what it watches and how an event of
 * each watched kind maps to keys of its own kind, the indexes it reads, and
 * which kinds' handlers fill the store before it at start-up.
 *
 * The shape follows controller-runtime's builder (For/Watches with a map
 * function, IndexField, Result{RequeueAfter}); a handler maps only to keys
 * of its own kind, so what requeues a handler is read in the handler's file.
 */
import type { KubeObject, ObjectKey } from '../../kube/cluster/types.ts';
import type { ChangePredicate } from '../../kube/runtime/changes.ts';
import type { ControllerSettings } from '../config.ts';
import type { Ctx, Kind } from './context.ts';

/** An informer event as a watch sees it: the object now (its last state when gone) and before. */
export interface WatchEvent {
  readonly object: KubeObject;
  /** The version before an update; undefined for an add or a delete. */
  readonly old: KubeObject | undefined;
  readonly gone: boolean;
}

/** Every object of the handler's kind (a change the whole kind depends on). */
export const ALL = 'all' as const;

/** What a watch's event maps to: keys of the handler's kind, or ALL of them. */
export type Requests = Iterable<ObjectKey> | typeof ALL;

export interface Watch {
  readonly kind: Kind;
  /**
   * Which updates matter (adds and deletes always do); absent: every
   * update. Judged by generation, resourceVersion and the few fields the
   * handler reads (kube/runtime/changes.ts), never by serializing objects.
   */
  readonly when?: ChangePredicate;
  /** The keys the event maps to; absent: the object's own key (a watch of the handler's own kind). */
  readonly map?: (ctx: Ctx, e: WatchEvent) => Requests;
  /**
   * Keys are queued after this delay instead of at once (the queue's
   * addAfter: a later event within the delay does not run it twice).
   */
  readonly delayMs?: (ctx: Ctx) => number;
}

/** An index a handler reads (`ctx.cache(kind).byIndex(name, value)`), kept by the kind's informer. */
export interface IndexDecl {
  readonly kind: Kind;
  readonly name: string;
  /** The values an object is found under (none: not in the index). */
  readonly values: (ctx: Ctx, o: KubeObject) => readonly string[];
}

/** What a reconcile may ask for: run again after a delay (controller-runtime's Result{RequeueAfter}). */
export interface Result {
  readonly requeueAfterMs?: number;
}

/**
 * @example
 * export const namespaceHandler: Handler = {
 *   kind: 'Namespace',
 *   after: ['Subnet', 'Vpc'],
 *   watches: [{ kind: 'Namespace' }, { kind: 'Subnet', when: specChanged, map: () => ALL }],
 *   reconcile: (ctx, key) => reconcileNamespace(ctx, key.name),
 * };
 */
export interface Handler {
  readonly kind: Kind;
  /** Kinds whose objects this handler reads from the store or the IPAM: reconciled before it at start-up. */
  readonly after: readonly Kind[];
  readonly watches: readonly Watch[];
  readonly indexes?: readonly IndexDecl[];
  /** Reconciles one key; a handler that asks for nothing returns nothing. */
  // biome-ignore lint/suspicious/noConfusingVoidType: the reconcile functions that ask nothing are Promise<void>.
  reconcile(ctx: Ctx, key: ObjectKey): Promise<Result | void>;
  /** The order start-up reconciles this kind's objects in (default: oldest first). */
  startOrder?(ctx: Ctx, list: readonly KubeObject[]): KubeObject[];
  /** Workers of this kind's queue (default: the settings' workerNum). */
  workers?(settings: ControllerSettings): number;
}

/**
 * The handlers in start-up order: each after the kinds it names in `after`,
 * otherwise in the order given. A cycle, or a kind named that no handler
 * reconciles, is a programming error and throws.
 *
 * @example startOrder([podHandler, subnetHandler]) // [subnetHandler, podHandler]
 */
export function startOrder(handlers: readonly Handler[]): Handler[] {
  const byKind = new Map(handlers.map((h) => [h.kind, h]));
  const out: Handler[] = [];
  const placed = new Set<Kind>();
  while (out.length < handlers.length) {
    const next = handlers.find((h) => !placed.has(h.kind) && h.after.every((k) => placed.has(k)));
    if (next === undefined) {
      const stuck = handlers.filter((h) => !placed.has(h.kind));
      const missing = stuck.flatMap((h) => h.after.filter((k) => !byKind.has(k)));
      throw new Error(
        missing.length > 0
          ? `handlers: ${missing.join(', ')} named in after has no handler`
          : `handlers: start order has a cycle among ${stuck.map((h) => h.kind).join(', ')}`,
      );
    }
    out.push(next);
    placed.add(next.kind);
  }
  return out;
}
