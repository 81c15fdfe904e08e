/**
 * Reading plain objects (YAML, JSON from an API server) into the typed views
 * the handlers use, field by field. Nothing here throws on bad data: a field
 * of the wrong type is left out of the view and reported as a
 * {@link DecodeIssue} naming the object and the field path, for the handler
 * to put in a status condition or an event.
 */
import { checkSupport, type KindSupport, type VerdictEffect } from './support.ts';

export interface DecodeIssue {
  readonly code:
    | 'wrong-type'
    | 'missing-field'
    | 'invalid-value'
    | 'unknown-field'
    | 'unsupported-field'
    | 'limited-field'
    | 'unsupported-annotation';
  /** `Kind/[namespace/]name`. */
  readonly object: string;
  /** `spec.cidrBlock`, `spec.containers[0].ports[1].containerPort`. */
  readonly field: string;
  readonly message: string;
  /**
   * For what kovn read and did not (fully) act on: whether a probe's verdict
   * may depend on it (support.ts). Absent for malformed values.
   */
  readonly verdict?: VerdictEffect;
}

/** A malformed value makes the object unusable as written; what is reported as not acted on does not. */
export const isBlocking = (i: DecodeIssue): boolean =>
  i.code === 'wrong-type' || i.code === 'missing-field' || i.code === 'invalid-value';

export type Plain = Readonly<Record<string, unknown>>;

export const isPlain = (v: unknown): v is Plain => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Field readers over one object, collecting issues. */
export class Reader {
  readonly issues: DecodeIssue[] = [];
  constructor(readonly object: string) {}

  private bad(field: string, want: string, v: unknown): undefined {
    this.issues.push({
      code: 'wrong-type',
      object: this.object,
      field,
      message: `${field} must be ${want}, got ${JSON.stringify(v)}`,
    });
    return undefined;
  }

  issue(code: DecodeIssue['code'], field: string, message: string): void {
    this.issues.push({ code, object: this.object, field, message });
  }

  obj(o: Plain | undefined, k: string, path: string): Plain | undefined {
    const v = o?.[k];
    if (v === undefined || v === null) return undefined;
    return isPlain(v) ? v : this.bad(join(path, k), 'an object', v);
  }

  str(o: Plain | undefined, k: string, path: string): string | undefined {
    const v = o?.[k];
    if (v === undefined || v === null) return undefined;
    return typeof v === 'string' ? v : this.bad(join(path, k), 'a string', v);
  }

  int(o: Plain | undefined, k: string, path: string): number | undefined {
    const v = o?.[k];
    if (v === undefined || v === null) return undefined;
    return typeof v === 'number' && Number.isInteger(v) ? v : this.bad(join(path, k), 'an integer', v);
  }

  bool(o: Plain | undefined, k: string, path: string): boolean | undefined {
    const v = o?.[k];
    if (v === undefined || v === null) return undefined;
    return typeof v === 'boolean' ? v : this.bad(join(path, k), 'true or false', v);
  }

  /** An int or a string (IntOrString). */
  intOrStr(o: Plain | undefined, k: string, path: string): number | string | undefined {
    const v = o?.[k];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v))) return v;
    return this.bad(join(path, k), 'an integer or a string', v);
  }

  /** A port number 1..65535 (Kubernetes' validation); out of range is an `invalid-value` issue. */
  port(o: Plain | undefined, k: string, path: string): number | undefined {
    const v = this.int(o, k, path);
    if (v === undefined || (v >= 1 && v <= 65535)) return v;
    this.issue('invalid-value', join(path, k), `${join(path, k)} must be a port number 1..65535, got ${v}`);
    return undefined;
  }

  /**
   * A port number 1..65535 or a port name (IANA_SVC_NAME: at most 15 lower-case letters, digits and
   * '-', with a letter, no '--', not starting or ending with '-'), as Kubernetes validates an IntOrString port.
   */
  portOrName(o: Plain | undefined, k: string, path: string): number | string | undefined {
    const v = this.intOrStr(o, k, path);
    if (v === undefined) return undefined;
    const at = join(path, k);
    if (typeof v === 'number') {
      if (v >= 1 && v <= 65535) return v;
      this.issue('invalid-value', at, `${at} must be a port number 1..65535 or a port name, got ${v}`);
      return undefined;
    }
    if (isPortName(v)) return v;
    this.issue(
      'invalid-value',
      at,
      `${at} must be a port number or a port name (IANA_SVC_NAME), got ${JSON.stringify(v)}`,
    );
    return undefined;
  }

  arr(o: Plain | undefined, k: string, path: string): readonly unknown[] | undefined {
    const v = o?.[k];
    if (v === undefined || v === null) return undefined;
    return Array.isArray(v) ? v : this.bad(join(path, k), 'a list', v);
  }

  strs(o: Plain | undefined, k: string, path: string): string[] | undefined {
    const a = this.arr(o, k, path);
    if (a === undefined) return undefined;
    const out: string[] = [];
    a.forEach((v, i) => (typeof v === 'string' ? out.push(v) : this.bad(`${join(path, k)}[${i}]`, 'a string', v)));
    return out;
  }

  objs(o: Plain | undefined, k: string, path: string): { readonly at: string; readonly value: Plain }[] {
    const a = this.arr(o, k, path) ?? [];
    const out: { at: string; value: Plain }[] = [];
    a.forEach((v, i) => {
      const at = `${join(path, k)}[${i}]`;
      if (isPlain(v)) out.push({ at, value: v });
      else this.bad(at, 'an object', v);
    });
    return out;
  }

  strMap(o: Plain | undefined, k: string, path: string): Record<string, string> {
    const m = this.obj(o, k, path);
    const out: Record<string, string> = Object.create(null);
    for (const [key, v] of Object.entries(m ?? {})) {
      if (typeof v === 'string') out[key] = v;
      else this.bad(`${join(path, k)}.${key}`, 'a string', v);
    }
    return out;
  }

  /**
   * Checks the whole object against its kind's support table: unknown
   * fields where the table is closed, fields and annotations not acted on.
   */
  support(o: Plain, table: KindSupport): void {
    for (const i of checkSupport(table, o))
      this.issues.push({ code: i.code, object: this.object, field: i.field, message: i.message, verdict: i.verdict });
  }
}

/** Kubernetes' IsValidPortName (IANA_SVC_NAME, RFC 6335). */
export function isPortName(v: string): boolean {
  return (
    v.length >= 1 &&
    v.length <= 15 &&
    /^[a-z0-9-]+$/.test(v) &&
    /[a-z]/.test(v) &&
    !v.includes('--') &&
    !v.startsWith('-') &&
    !v.endsWith('-')
  );
}

const join = (path: string, k: string) => (path === '' ? k : `${path}.${k}`);
