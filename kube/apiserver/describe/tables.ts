/**
 * meta.k8s.io/v1 Tables, what `kubectl get` asks for (`Accept:
 * application/json;as=Table;v=v1;g=meta.k8s.io`): the built-in printers
 * (printers.ts) for built-in kinds, a CRD's additionalPrinterColumns
 * (NAME first, then its columns; AGE when it declares none, as the API
 * server defaults them) evaluated by their JSONPath, NAME/AGE otherwise.
 * The row's object is omitted, its metadata only, or the whole object, as
 * `includeObject` says.
 */
import type { KubeObject } from '../../cluster/types.ts';
import type { PrinterColumn, ServedResource } from '../types.ts';
import { ageOf } from './age.ts';
import { GENERIC, type Printer } from './printer-kit.ts';
import { BUILTIN_PRINTERS } from './printers.ts';

export interface TableOptions {
  readonly wide: boolean;
  readonly includeObject: 'None' | 'Metadata' | 'Object';
  readonly resourceVersion: string;
  /** Milliseconds since the epoch, for AGE cells; without it they read `<unknown>`. */
  readonly now?: () => number;
}

const CRD_AGE: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', priority: 0 };

/**
 * The values a simple JSONPath (`.status.v4availableIPs`, `.spec.ports[0].port`,
 * `.spec.excludeIps[*]`) reaches; `{...}` braces are allowed around it.
 *
 * @example jsonPathValues({ spec: { a: [1, 2] } }, '.spec.a[*]') // [1, 2]
 */
export function jsonPathValues(root: unknown, path: string): unknown[] {
  const inner = path.trim().replace(/^\{(.*)\}$/, '$1');
  const steps = inner.match(/\.[^.[]+|\[[^\]]*\]/g) ?? [];
  let values: unknown[] = [root];
  for (const step of steps) {
    values = values.flatMap((v): unknown[] => {
      if (step.startsWith('.')) {
        const key = step.slice(1).replace(/^['"]|['"]$/g, '');
        return typeof v === 'object' && v !== null && !Array.isArray(v) && key in v
          ? [(v as Record<string, unknown>)[key]]
          : [];
      }
      if (!Array.isArray(v)) return [];
      const sel = step.slice(1, -1);
      if (sel === '*') return v;
      const i = Number(sel);
      const at = i < 0 ? v.length + i : i;
      return Number.isInteger(i) && at >= 0 && at < v.length ? [v[at]] : [];
    });
  }
  return values;
}

/**
 * A CRD column's cell as the API server's CRD table convertor makes it: the
 * first value the path reaches; a string column prints it (arrays and
 * objects as JSON), integer, number and boolean columns keep a value of
 * their type (null otherwise), a date column is an age; null when absent.
 */
function crdCell(o: KubeObject, c: PrinterColumn, now: (() => number) | undefined): unknown {
  const values = jsonPathValues(o, c.jsonPath ?? '');
  if (values.length === 0 || values[0] === null) return null;
  const v = values[0];
  switch (c.type) {
    case 'string':
      return typeof v === 'string' ? v : JSON.stringify(v);
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v) ? v : null;
    case 'number':
      return typeof v === 'number' ? v : null;
    case 'boolean':
      return typeof v === 'boolean' ? v : null;
    case 'date':
      return ageOf(v, now);
    default:
      return null;
  }
}

function printerOf(r: ServedResource): Printer {
  if (r.origin !== 'builtin' || r.printerColumns !== undefined) {
    const cols = r.printerColumns && r.printerColumns.length > 0 ? r.printerColumns : [CRD_AGE];
    const name = GENERIC.columns[0]!;
    return {
      columns: [name, ...cols],
      cells: (o, now) => [o.metadata.name, ...cols.map((c) => crdCell(o, c, now))],
    };
  }
  return BUILTIN_PRINTERS[r.kind] ?? GENERIC;
}

function rowObject(o: KubeObject, include: TableOptions['includeObject']): unknown {
  if (include === 'Object') return o;
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata };
}

/**
 * The Table of a list (or one object) of a resource.
 *
 * @example renderTable(podsResource, pods, { wide: true, includeObject: 'Metadata', resourceVersion: '42' })
 */
export function renderTable(r: ServedResource, objects: readonly KubeObject[], opts: TableOptions): unknown {
  const p = printerOf(r);
  // Every column is sent, as the API server does: kubectl 1.20 asks the same for `-o wide` and hides priority > 0 itself.
  const columnDefinitions = p.columns.map((c) => ({
    name: c.name,
    type: c.type,
    format: c.format ?? '',
    description: c.description ?? '',
    priority: c.priority,
  }));
  const rows = objects.map((o) => ({
    cells: p.cells(o, opts.now),
    ...(opts.includeObject === 'None' ? {} : { object: rowObject(o, opts.includeObject) }),
  }));
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: { resourceVersion: opts.resourceVersion },
    columnDefinitions,
    rows,
  };
}
