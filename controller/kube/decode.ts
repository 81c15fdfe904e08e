/**
 * Reading plain objects (YAML, JSON from an API server) into the typed views
 * the handlers use, field by field. Nothing here throws on bad data: a field
 * of the wrong type is left out of the view and reported as a
 * {@link DecodeIssue} naming the object and the field path, for the handler
 * to put in a status condition or an event.
 */

export interface DecodeIssue {
  readonly code: 'wrong-type' | 'missing-field' | 'unknown-field' | 'invalid-value';
  /** `Kind/[namespace/]name`. */
  readonly object: string;
  /** `spec.cidrBlock`, `spec.containers[0].ports[1].containerPort`. */
  readonly field: string;
  readonly message: string;
}

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

  /** Reports fields of `o` not in `known` (kubeovn.io specs are closed: a typo must not pass unnoticed). */
  closed(o: Plain | undefined, known: readonly string[], path: string): void {
    for (const k of Object.keys(o ?? {}))
      if (!known.includes(k)) this.issue('unknown-field', join(path, k), `unknown field ${join(path, k)}`);
  }
}

const join = (path: string, k: string) => (path === '' ? k : `${path}.${k}`);
