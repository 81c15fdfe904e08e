/**
 * One selector requirement (a key, an operator, values) against one label
 * value, as Kubernetes evaluates it: node affinity's NodeSelectorRequirement
 * (the scheduler) and the label-selector syntax of list and watch requests
 * (`app=web`, `tier notin (a,b)`, `!legacy`, `rank > 3`: selectors.ts) are
 * both this.
 */

/** `In`, `NotIn`, `Exists`, `DoesNotExist`, `Gt`, `Lt`; anything else matches nothing. */
export type RequirementOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';

const INTEGER = /^-?\d+$/;

/**
 * Whether a label `value` (undefined: the label is absent) meets the
 * requirement. Gt and Lt compare integers (Go's ParseInt: a value that is
 * not one matches neither); an unknown operator matches nothing (a pod stays
 * pending, never misplaced).
 *
 * @example requirementHolds('NotIn', ['a'], undefined) // true
 */
export function requirementHolds(operator: unknown, values: readonly unknown[], value: string | undefined): boolean {
  switch (operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt': {
      const bound = values[0];
      if (value === undefined || !INTEGER.test(value) || typeof bound !== 'string' || !INTEGER.test(bound))
        return false;
      return operator === 'Gt' ? Number(value) > Number(bound) : Number(value) < Number(bound);
    }
    default:
      return false;
  }
}

/** The value of `key` among `labels`, undefined when absent (never an inherited property). */
export const labelValue = (labels: Readonly<Record<string, string>>, key: string): string | undefined =>
  Object.hasOwn(labels, key) ? labels[key] : undefined;
