/**
 * Warnings: what kovn read and did not act on, or refused, as data that
 * travels with every answer (`kovn sim run/connectivity/trace --json` carry
 * `warnings: [{code, kind, namespace, name, field, message}]`,
 * docs/architecture.md "The `kovn` command").
 *
 * A warning may also say what a probe's verdict may depend on (`scope`): a
 * probe from or to something in that scope is `unsure` rather than a
 * confident answer built on what was ignored.
 */

/** What a probe's verdict may depend on. */
export type VerdictScope =
  /** Every probe (an AdminNetworkPolicy not acted on, say). */
  | { readonly kind: 'cluster' }
  | { readonly kind: 'vpc'; readonly name: string }
  | { readonly kind: 'subnet'; readonly name: string }
  | { readonly kind: 'namespace'; readonly name: string }
  | { readonly kind: 'pod'; readonly namespace: string; readonly name: string }
  | { readonly kind: 'service'; readonly namespace: string; readonly name: string }
  /** The pods a NetworkPolicy selects. */
  | { readonly kind: 'policy'; readonly namespace: string; readonly name: string }
  /** Addresses or CIDRs an object not acted on claims (a Vip, an EIP, a SwitchLBRule's VIP). */
  | { readonly kind: 'addresses'; readonly cidrs: readonly string[] };

/**
 * Codes (PascalCase, as Kubernetes event reasons):
 * - `UnknownField`: a field the kind does not have (a typo);
 * - `UnsupportedField`, `UnsupportedAnnotation`: read, not acted on;
 * - `LimitedField`: acted on with a limitation that applies to this value;
 * - `InvalidField`: a value of the wrong type or out of range;
 * - `UnsupportedKind`: a kind (or apiVersion) kovn does not handle;
 * - `InvalidObject`: refused as the API server refuses it (a bad name);
 * - `FailedScheduling`: a pod no node fits;
 * - and the controller's own reasons, Kube-OVN's event reasons
 *   (`ValidateLogicalSwitchFailed`, `AcquireAddressFailed`, ...).
 */
export interface Warning {
  readonly code: string;
  readonly kind: string;
  /** '' for cluster-scoped objects. */
  readonly namespace: string;
  readonly name: string;
  /** The field (`spec.vlan`, `metadata.annotations[ovn.kubernetes.io/ingress_rate]`); '' for the whole object. */
  readonly field: string;
  readonly message: string;
  /** What a probe's verdict may depend on; absent when no verdict does. */
  readonly scope?: readonly VerdictScope[];
}

/** The JSON form (scope is the runner's business, not the contract's). */
export function warningJSON(w: Warning): {
  code: string;
  kind: string;
  namespace: string;
  name: string;
  field: string;
  message: string;
} {
  return { code: w.code, kind: w.kind, namespace: w.namespace, name: w.name, field: w.field, message: w.message };
}

/** `Kind ns/name field: message`, for a terminal. */
export function formatWarning(w: Warning): string {
  const obj = `${w.kind} ${w.namespace ? `${w.namespace}/` : ''}${w.name}`;
  // Most messages name their field already; the field is added where one does not.
  const field = w.field && !w.message.includes(w.field) ? ` ${w.field}` : '';
  return `${w.code} ${obj}${field}: ${w.message}`;
}

/** The scope an object's own warnings have: the object itself, as probes see it. */
export function ownScope(kind: string, namespace: string, name: string): VerdictScope[] {
  switch (kind) {
    case 'Subnet':
      return [{ kind: 'subnet', name }];
    case 'Vpc':
      return [{ kind: 'vpc', name }];
    case 'Namespace':
      return [{ kind: 'namespace', name }];
    case 'Pod':
      return [{ kind: 'pod', namespace, name }];
    case 'Service':
      return [{ kind: 'service', namespace, name }];
    case 'NetworkPolicy':
      return [{ kind: 'policy', namespace, name }];
    default:
      return [];
  }
}
