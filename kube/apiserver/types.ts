/**
 * The contract between the parts of kovn's Kubernetes-API front (`kovn sim
 * serve`): the HTTP side (routing, CRUD, patches, watch, selectors, TLS,
 * kubeconfig: kube/apiserver/http/) and the API-description side (the
 * catalog of served resources, discovery, /openapi/v2, Tables for `kubectl
 * get`, CRDs registered from kovn's own manifests and validated against
 * their schemas). The HTTP side routes every request through a `Catalog`
 * and never knows a kind by name.
 *
 * The front serves a `ClusterSource` (kube/cluster/types.ts): the in-memory
 * cluster, with the controller running against it in the same process.
 */
import type { KubeObject } from '../cluster/types.ts';

/** A column of `kubectl get` (a Table's columnDefinitions entry, or a CRD's additionalPrinterColumns). */
export interface PrinterColumn {
  readonly name: string;
  /** `string`, `integer`, `number`, `boolean`, `date`. */
  readonly type: string;
  readonly format?: string;
  readonly description?: string;
  /** 0 = shown by default; 1 and more = shown with `-o wide` only. */
  readonly priority: number;
  /** A JSONPath-like reference into the object (`.status.podIP`), for CRDs; built-ins compute theirs. */
  readonly jsonPath?: string;
}

/** One resource the front serves (an entry of a discovery APIResourceList, and what routes to it). */
export interface ServedResource {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** The resource name in paths (`subnets`). */
  readonly plural: string;
  /** Lowercase kind (`subnet`). */
  readonly singular: string;
  readonly listKind: string;
  readonly namespaced: boolean;
  /** The verbs of discovery: `get list watch create update patch delete deletecollection` as implemented. */
  readonly verbs: readonly string[];
  readonly shortNames: readonly string[];
  /** `all` for the kinds `kubectl get all` lists. */
  readonly categories: readonly string[];
  /** Whether `<plural>/status` is served. */
  readonly statusSubresource: boolean;
  /**
   * Built-in kinds: kubectl sends strategic merge patches for them
   * (`application/strategic-merge-patch+json`), which the front must apply
   * with the kind's patch strategies; CRDs get JSON merge patches only.
   */
  readonly strategicMerge: boolean;
  /** Where the resource came from: kovn's built-in list, or a CustomResourceDefinition object. */
  readonly origin: 'builtin' | { readonly crd: string };
  /** A CRD's `openAPIV3Schema` for this version; objects are validated against it on create and update. */
  readonly schema?: unknown;
  readonly printerColumns?: readonly PrinterColumn[];
}

/** A field an object was refused for: the `details.causes` of a 422 Status. */
export interface FieldCause {
  /** `FieldValueRequired`, `FieldValueInvalid`, `FieldValueNotSupported`, `FieldValueTypeInvalid`, `FieldValueUnknown`. */
  readonly reason: string;
  /** `spec.cidrBlock`. */
  readonly field: string;
  readonly message: string;
}

/** The served resources, the built-in ones and those registered by CRDs. */
export interface Catalog {
  all(): readonly ServedResource[];
  /** The resource a path names (`group` '' for the core group). */
  byPath(group: string, version: string, plural: string): ServedResource | undefined;
  /** The resource of an object's apiVersion and kind. */
  byKind(apiVersion: string, kind: string): ServedResource | undefined;
  /**
   * Registers the resources of a CustomResourceDefinition (created or
   * updated): its served versions become routable, and its objects are
   * validated against its schema. Returns what is wrong with the CRD itself.
   */
  registerCrd(crd: KubeObject): readonly FieldCause[];
  /** The CRD is gone: its resources stop being served. */
  unregisterCrd(name: string): void;
  /** Called after every change of the set of resources (discovery caches are dropped). */
  onChange(listener: () => void): () => void;
}

/** An HTTP answer the HTTP side writes as it is (JSON body). */
export interface ApiAnswer {
  readonly status: number;
  /** A JSON value, or bytes (a `Uint8Array`, e.g. /openapi/v2 as protobuf) written as they are with `contentType`. */
  readonly body: unknown;
  readonly contentType?: string;
}

/**
 * The API-description side, as the HTTP side calls it. `discovery` answers
 * `/api`, `/apis`, `/api/v1`, `/apis/<g>`, `/apis/<g>/<v>`, `/version` and
 * `/openapi/v2` (undefined: not a discovery path). `table` renders a list
 * (or one object) as a meta.k8s.io/v1 Table for `kubectl get` when the
 * request's Accept asks `as=Table`. `validate` checks an object against its
 * resource before a create or update (CRD schemas; built-in basics).
 */
export interface ApiDescription {
  readonly catalog: Catalog;
  /**
   * `accept` is the request's Accept header: /openapi/v2 answers gnostic's
   * protobuf (what kubectl asks for) unless it asks for JSON only.
   */
  discovery(path: string, accept?: string): ApiAnswer | undefined;
  table(
    resource: ServedResource,
    objects: readonly KubeObject[],
    opts: {
      /**
       * Informational: every column is sent whatever it says, as the API
       * server does (kubectl 1.20 asks the same for `-o wide` and hides
       * columns of priority > 0 itself).
       */
      readonly wide: boolean;
      readonly includeObject: 'None' | 'Metadata' | 'Object';
      readonly resourceVersion: string;
    },
  ): unknown;
  validate(resource: ServedResource, obj: KubeObject): readonly FieldCause[];
  /**
   * The object as it is stored: the fields `validate` reported as
   * `FieldValueUnknown` (and nulls of fields that are not nullable) removed,
   * as an API server with fieldValidation=Warn prunes them, and a CRD
   * schema's defaults applied. The object itself when its resource has no
   * schema.
   */
  prune?(resource: ServedResource, obj: KubeObject): KubeObject;
}
