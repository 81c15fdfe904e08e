/**
 * Fuzz target of the match language parser: any text ⇒ an expression or a
 * MatchParseError inside the input; an accepted expression prints to text
 * that parses back to the same expression.
 */
import { mutatedText } from '../../test/fuzz/mutate.ts';
import type { FuzzTarget } from '../../test/fuzz/target.ts';
import { matchExprArbitrary, matchTokenSoupArbitrary } from './arbitrary.ts';
import { MatchParseError } from './errors.ts';
import { tryParseMatch } from './parser.ts';
import { printMatch } from './printer.ts';

const canonical = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x));

export const targets: FuzzTarget<string>[] = [
  {
    name: 'match/parse-print',
    arbitrary: mutatedText(matchExprArbitrary({ depth: 3 }).map(printMatch), matchTokenSoupArbitrary()),
    run(text) {
      const r = tryParseMatch(text);
      if (!r.ok) {
        if (!(r.error instanceof MatchParseError)) throw new Error(`not a MatchParseError: ${r.error}`);
        if (r.error.position < 0 || r.error.position > text.length)
          throw new Error(`error position ${r.error.position} outside the input`);
        return 'rejected';
      }
      const printed = printMatch(r.expr);
      const again = tryParseMatch(printed);
      if (!again.ok) throw new Error(`printed form does not parse: ${printed} (${again.error.message})`);
      if (canonical(again.expr) !== canonical(r.expr)) throw new Error(`parse(print(x)) != x for ${printed}`);
      return 'accepted';
    },
    ciRuns: 500,
  },
];
