/**
 * Command-line numbers, checked: `--seed abc`, `--cases 1.5` or `--port 0`
 * is an error naming the option and what it takes, never NaN passed down.
 */
import { InvalidArgumentError } from 'commander';

/**
 * A commander argument parser for a whole number in [min, max].
 *
 * @example program.option('--cases <n>', 'cases', wholeNumber('--cases', 1), 300)
 */
export function wholeNumber(flag: string, min = 0, max = Number.MAX_SAFE_INTEGER): (v: string) => number {
  return (v: string) => {
    const t = v.trim();
    const n = /^-?\d+$/.test(t) ? Number(t) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max)
      throw new InvalidArgumentError(
        `${flag} takes a whole number ${min}..${max === Number.MAX_SAFE_INTEGER ? '' : max}, got ${JSON.stringify(v)}`,
      );
    return n;
  };
}
