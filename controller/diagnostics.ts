/**
 * The controller's current account of what it did not act on or refused,
 * per object: the warnings an answer built on its work must carry
 * (kube/objects/warnings.ts). Level-driven like everything else: each
 * source of problems (`topic`: the decoder, a handler's reconcile) replaces
 * its whole list for the object every time it looks at it, and an object's
 * problems go with the object. Events stay what they are in Kubernetes, a
 * history; this is the state.
 */
import { type KubeObject, type ObjectRef, refOf } from '../kube/cluster/types.ts';
import type { DecodeIssue } from '../kube/objects/decode.ts';
import type { Decoded } from '../kube/objects/objects.ts';
import { DECODERS } from '../kube/registry.ts';
import { ownScope, type VerdictScope, type Warning } from '../kube/objects/warnings.ts';

export interface Problem {
  readonly code: string;
  readonly field: string;
  readonly message: string;
  /** What a probe's verdict may depend on; absent when no verdict does. */
  readonly scope?: readonly VerdictScope[];
}

interface Entry {
  readonly ref: ObjectRef;
  readonly topics: Map<string, readonly Problem[]>;
}

const DECODE_CODES: Readonly<Record<DecodeIssue['code'], string>> = {
  'wrong-type': 'InvalidField',
  'missing-field': 'InvalidField',
  'invalid-value': 'InvalidField',
  'unknown-field': 'UnknownField',
  'unsupported-field': 'UnsupportedField',
  'limited-field': 'LimitedField',
  'unsupported-annotation': 'UnsupportedAnnotation',
};

/**
 * Decode issues as problems: a malformed value, or what was read and not
 * acted on where a verdict may depend on it, has the scope given (by default
 * the object's own, `ownScope`).
 *
 * @example decodeProblems(d.issues, [{ kind: 'subnet', name: 's1' }])
 */
function decodeProblems(issues: readonly DecodeIssue[], scope: readonly VerdictScope[]): Problem[] {
  return issues.map((i) => ({
    code: DECODE_CODES[i.code],
    field: i.field,
    message: i.message,
    ...(i.verdict === 'none' || scope.length === 0 ? {} : { scope }),
  }));
}

export class Diagnostics {
  private readonly byObject = new Map<string, Entry>();

  /** Replaces what `topic` says about `ref` (an empty list clears it). */
  set(ref: ObjectRef, topic: string, problems: readonly Problem[]): void {
    const id = idOf(ref);
    let e = this.byObject.get(id);
    if (problems.length === 0) {
      e?.topics.delete(topic);
      if (e && e.topics.size === 0) this.byObject.delete(id);
      return;
    }
    if (e === undefined) this.byObject.set(id, (e = { ref, topics: new Map() }));
    e.topics.set(topic, problems);
  }

  /** Objects something is said about now. */
  get size(): number {
    return this.byObject.size;
  }

  /** The object is gone: nothing is said about it any more. */
  forget(ref: ObjectRef): void {
    this.byObject.delete(idOf(ref));
  }

  /** Every current warning, by kind, namespace, name and field. */
  list(): Warning[] {
    const out: Warning[] = [];
    for (const { ref, topics } of this.byObject.values())
      for (const problems of topics.values())
        for (const p of problems)
          out.push({
            code: p.code,
            kind: ref.kind,
            namespace: ref.namespace ?? '',
            name: ref.name,
            field: p.field,
            message: p.message,
            ...(p.scope && p.scope.length > 0 ? { scope: p.scope } : {}),
          });
    const key = (w: Warning) => [w.kind, w.namespace, w.name, w.field, w.code, w.message];
    return out.sort((a, b) => {
      const ka = key(a);
      const kb = key(b);
      for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return ka[i]! < kb[i]! ? -1 : 1;
      return 0;
    });
  }
}

/** A map key for a reference (never parsed back: the entry keeps the reference itself). */
const idOf = (ref: ObjectRef) => JSON.stringify([ref.kind, ref.namespace ?? '', ref.name]);

/** What a kind's own decode problems may change: the object, or what it belongs to. */
function decodeScope(kind: string, o: KubeObject, d: Decoded<unknown>): VerdictScope[] {
  const v = d.value as { subnet?: string; podName?: string; namespace?: string; service?: string };
  const ns = o.metadata.namespace ?? '';
  if (kind === 'IPPool') return v.subnet ? [{ kind: 'subnet', name: v.subnet }] : [];
  if (kind === 'IP') return v.podName ? [{ kind: 'pod', namespace: v.namespace ?? '', name: v.podName }] : [];
  if (kind === 'EndpointSlice') return v.service ? [{ kind: 'service', namespace: ns, name: v.service }] : [];
  return ownScope(kind, ns, o.metadata.name);
}

/**
 * Informer handlers that keep every object's decode issues (malformed values,
 * fields and annotations not acted on) as its `decode` problems, current
 * with the cache; `decode` is the controller's memoized decoding.
 *
 * @example informer.addHandlers(decodeReporter(diagnostics, ctx.decode, 'Subnet'))
 */
export function decodeReporter(
  diagnostics: Diagnostics,
  decode: <T>(o: KubeObject, f: (o: KubeObject) => Decoded<T>) => Decoded<T>,
  kind: string,
): {
  onAdd: (o: KubeObject) => void;
  onUpdate: (old: KubeObject, o: KubeObject) => void;
  onDelete: (o: KubeObject) => void;
} {
  const decoder = DECODERS[kind];
  const report = (o: KubeObject) => {
    if (decoder === undefined) return;
    const d = decode(o, decoder);
    diagnostics.set(refOf(o), 'decode', decodeProblems(d.issues, decodeScope(kind, o, d)));
  };
  return { onAdd: report, onUpdate: (_old, o) => report(o), onDelete: (o) => diagnostics.forget(refOf(o)) };
}
