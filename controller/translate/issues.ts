/**
 * What a translation could not take as given: data naming the object and the
 * field, for the handler to put in the object's status condition or an event.
 */
export interface TranslateIssue {
  readonly code:
    | 'invalid-match'
    | 'invalid-cidr'
    | 'invalid-address'
    | 'invalid-value'
    /** A value kovn cannot express on the OVN it runs (a SecurityGroup's pass rule on 23.03). */
    | 'unsupported'
    /** A name that refers to an object that does not exist (a SecurityGroup's remote group). */
    | 'missing-reference';
  /** `Kind/[namespace/]name`. */
  readonly object: string;
  /** The field, e.g. `spec.acls[2].match`. */
  readonly field: string;
  readonly message: string;
}

export interface Translation<T> {
  readonly value: T;
  readonly issues: readonly TranslateIssue[];
}
