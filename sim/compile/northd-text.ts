/**
 * Flows northd 23.03 builds by pasting text together, and whether OVN
 * accepts the result. ovn-controller (and ovn-trace) parse every logical
 * flow's match and actions and skip a flow that fails (it is logged, never
 * installed): packets then meet the stage's other flows as if it did not
 * exist. northd checks none of the text it pastes, and some of it fails:
 *
 * - build_reject_acl_rules puts a stateful switch's hint test before a
 *   reject ACL's match without parentheses, `(reg0[9] == 1) && ip4 || ip4`,
 *   and OVN refuses `&&` next to `||` ("must be parenthesized");
 * - build_lb_vip_actions puts `flags.skip_snat_for_lb = 1; ` (or
 *   `force_snat`) before a router VIP's `drop;`, and `drop;` may only stand
 *   alone (lib/actions.c parse_actions);
 * - build_acl_log quotes the ACL's name and meter as they are: a `"` in one
 *   ends the string early.
 *
 * So the simulator builds those flows' text as northd does, from the match
 * text kovn writes to NB (printMatch, backends/ovn/nb/columns.ts), and
 * checks it: matches with model/match's parser, actions with
 * {@link actionsRejection}.
 */
import { nextToken, tryParseMatch, type Token, type TokenType } from '../../model/match/index.ts';
import type { ACL, LoadBalancer } from '../../model/topology/index.ts';
import type { AclRefusals, RefusedFlow } from './types.ts';

/** One logical flow as northd writes it (the parts OVN parses). */
export interface FlowText {
  /** The stage, for messages (ls_in_acl, lr_in_dnat, ...). */
  readonly stage: string;
  readonly match: string;
  readonly actions: string;
}

/** Why OVN refuses a flow, or undefined when it installs it. */
export function flowRejection(flow: FlowText): string | undefined {
  const m = tryParseMatch(flow.match);
  if (!m.ok) return m.error.message;
  return actionsRejection(flow.actions);
}

const UTF8 = new TextEncoder();
const LOG_SEVERITIES: ReadonlySet<string> = new Set(['alert', 'warning', 'notice', 'info', 'debug']);
const LOG_VERDICTS: ReadonlySet<string> = new Set(['drop', 'reject', 'allow']);

class Tokens {
  tok: Token;
  constructor(readonly text: string) {
    this.tok = nextToken(text, 0);
  }
  next(): void {
    this.tok = nextToken(this.text, this.tok.end);
  }
  /** The current token's type (a call: TypeScript must not carry a narrowing across next()). */
  type(): TokenType {
    return this.tok.type;
  }
  near(): string {
    return this.tok.type === 'end' ? 'end of input' : `\`${this.text.slice(this.tok.start, this.tok.end)}'`;
  }
  isId(name: string): boolean {
    return this.tok.type === 'id' && this.tok.text === name;
  }
}

/** `log(...)` arguments as parse_log_arg takes them; the tokens stand after `log`. */
function logArgsRejection(t: Tokens): string | undefined {
  let verdict = false;
  if (t.type() !== '(') return 'Syntax error: expecting verdict';
  t.next();
  while (t.type() !== ')') {
    const key = t.type() === 'id' ? t.tok.text : undefined;
    if (key === undefined || !['name', 'meter', 'severity', 'verdict'].includes(key))
      return `Syntax error at ${t.near()}`;
    t.next();
    if (t.type() !== '=') return `Syntax error at ${t.near()} expecting \`='`;
    t.next();
    if (key === 'name' || key === 'meter') {
      if (t.type() !== 'string') return `Syntax error at ${t.near()} expecting string`;
      if (key === 'name' && UTF8.encode(t.tok.text ?? '').length >= 64)
        return `Syntax error at ${t.near()} name must be shorter than 64 characters`;
    } else {
      const ok = t.type() === 'id' && (key === 'severity' ? LOG_SEVERITIES : LOG_VERDICTS).has(t.tok.text ?? '');
      if (!ok) return `Syntax error at ${t.near()} ${key === 'severity' ? 'unknown severity' : 'unknown verdict'}`;
      if (key === 'verdict') verdict = true;
    }
    t.next();
    if (t.type() === ',') t.next();
  }
  t.next();
  return verdict ? undefined : `Syntax error at ${t.near()} expecting verdict`;
}

/** Skips one statement's tokens up to its `;` at depth 0 (nested `{...}` and `(...)` included). */
function skipStatement(t: Tokens): string | undefined {
  let depth = 0;
  for (; t.type() !== 'end'; t.next()) {
    const ty = t.type();
    if (ty === 'error') return t.tok.message;
    if (ty === '{' || ty === '(') depth++;
    else if (ty === '}' || ty === ')') depth--;
    else if (ty === ';' && depth === 0) return undefined;
  }
  return `Syntax error at end of input expecting \`;'`;
}

/**
 * Why OVN's action parser refuses an action list, as far as northd's pasted
 * text can make it: lexical errors anywhere, `drop;` anywhere but alone
 * (parse_actions), and `log(...)`'s arguments (parse_log_arg: a quoted name
 * under 64 bytes, a quoted meter, a known severity and verdict). Every other
 * statement is taken as valid: it is northd's own fixed text.
 *
 * @example actionsRejection('flags.skip_snat_for_lb = 1; drop;') // "Syntax error at `drop' expecting action"
 * @example actionsRejection('drop;') // undefined
 */
export function actionsRejection(text: string): string | undefined {
  const t = new Tokens(text);
  if (t.isId('drop')) {
    t.next();
    if (t.type() === ';') {
      t.next();
      return t.type() === 'end' ? undefined : `Syntax error at ${t.near()} expecting end of input`;
    }
    return `Syntax error at ${t.near()} expecting action`;
  }
  while (t.type() !== 'end') {
    if (t.type() === 'error') return t.tok.message;
    if (t.isId('drop')) return `Syntax error at ${t.near()} expecting action`;
    if (t.isId('log')) {
      t.next();
      const why = logArgsRejection(t);
      if (why !== undefined) return why;
      if (t.type() !== ';') return `Syntax error at ${t.near()} expecting \`;'`;
      t.next();
      continue;
    }
    const why = skipStatement(t);
    if (why !== undefined) return why;
    t.next();
  }
  return undefined;
}

/** build_acl_log: the `log(...); ` an ACL's actions start with ('' when it does not log). */
function aclLog(acl: ACL): string {
  if (!acl.log) return '';
  const name = acl.name !== undefined ? `name="${acl.name}", ` : '';
  const verdict = acl.action === 'drop' ? 'drop' : acl.action === 'reject' ? 'reject' : 'allow';
  const meter = acl.meter !== undefined ? `, meter="${acl.meter}"` : '';
  return `log(${name}severity=${acl.severity ?? 'info'}, verdict=${verdict}${meter}); `;
}

/** Where the ACL's flows go. */
function aclStageName(acl: ACL): string {
  if (acl.direction === 'to-lport') return 'ls_out_acl';
  return acl.options['apply-after-lb'] === 'true' ? 'ls_in_acl_after_lb' : 'ls_in_acl';
}

/** build_reject_acl_rules: the hint test (if any) pasted before the match, unparenthesized. */
function rejectFlow(acl: ACL, stage: string, match: string, extraMatch: string, extraActions: string): FlowText {
  const ingress = stage !== 'ls_out_acl';
  const next = ingress ? 'next(pipeline=egress,table=LS_OUT_QOS_MARK);' : 'next(pipeline=ingress,table=LS_IN_L2_LKUP);';
  return {
    stage,
    match: extraMatch === '' ? match : `(${extraMatch}) && ${match}`,
    actions: `${aclLog(acl)}${extraActions === '' ? '' : `${extraActions} `}reg0 = 0; reject { /* eth.dst <-> eth.src; ip.dst <-> ip.src; is implicit. */ outport <-> inport; ${next} };`,
  };
}

/**
 * The flows consider_acl writes for an ACL in its ACL stage, on a switch
 * with stateful ACLs or load balancers (`stateful`) or without; `match` is
 * the ACL's match text. (Table numbers in `next(...)` are named, not
 * numbered: they do not change whether the text parses.)
 *
 * @example aclFlows(rejectAcl, 'ip4 || ip4', true)[0].match // '(reg0[9] == 1) && ip4 || ip4'
 */
export function aclFlows(acl: ACL, match: string, stateful: boolean): FlowText[] {
  const stage = aclStageName(acl);
  const log = aclLog(acl);
  const a = acl.action;
  if (a === 'allow-stateless' || ((a === 'allow' || a === 'allow-related') && !stateful))
    return [{ stage, match, actions: `${log}next;` }];
  if (a === 'allow' || a === 'allow-related') {
    const label = acl.label !== undefined ? `reg0[13] = 1; reg3 = ${acl.label}; ` : '';
    return [
      { stage, match: `reg0[7] == 1 && (${match})`, actions: `reg0[1] = 1; ${label}${log}next;` },
      {
        stage,
        match: `reg0[8] == 1 && (${match})`,
        actions: `${acl.label !== undefined ? `reg0[1] = 1; ${label}` : ''}${log}next;`,
      },
    ];
  }
  if (!stateful)
    return a === 'reject' ? [rejectFlow(acl, stage, match, '', '')] : [{ stage, match, actions: `${log}/* drop */` }];
  const block = 'ct_commit { ct_mark.blocked = 1; }; ';
  if (a === 'reject')
    return [rejectFlow(acl, stage, match, 'reg0[9] == 1', ''), rejectFlow(acl, stage, match, 'reg0[10] == 1', block)];
  return [
    { stage, match: `reg0[9] == 1 && (${match})`, actions: `${log}/* drop */` },
    { stage, match: `reg0[10] == 1 && (${match})`, actions: `${block}${log}/* drop */` },
  ];
}

/** build_stateless_filter: the pre-ACL flow of an allow-stateless ACL (no log). */
export function aclPreAclFlow(acl: ACL, match: string): FlowText {
  return {
    stage: acl.direction === 'to-lport' ? 'ls_out_pre_acl' : 'ls_in_pre_acl',
    match,
    actions: 'reg0[16] = 1; next;',
  };
}

/** The first of `flows` OVN refuses, with the reason. */
export function firstRefused(flows: readonly FlowText[]): RefusedFlow | undefined {
  for (const f of flows) {
    const reason = flowRejection(f);
    if (reason !== undefined) return { ...f, reason };
  }
  return undefined;
}

/**
 * Which of an ACL's flows OVN refuses, on either kind of switch. The
 * ACL-stage flows of one kind share the match and the log action and
 * differ only in the hint bit they test and northd's own action text, so
 * they parse alike: they are kept or refused together.
 *
 * @example aclRefusals(rejectAcl, 'ip4 || ip4') // { stateful: { match: '(reg0[9] == 1) && ip4 || ip4', reason: '... must be parenthesized ...' } }
 */
export function aclRefusals(acl: ACL, match: string): AclRefusals | undefined {
  const plain = firstRefused(aclFlows(acl, match, false));
  const stateful = firstRefused(aclFlows(acl, match, true));
  const preAcl = acl.action === 'allow-stateless' ? firstRefused([aclPreAclFlow(acl, match)]) : undefined;
  if (plain === undefined && stateful === undefined && preAcl === undefined) return undefined;
  return { ...(plain ? { plain } : {}), ...(stateful ? { stateful } : {}), ...(preAcl ? { preAcl } : {}) };
}

/** lrouter_nat_lb_flow_type: which action variant a router writes for its load balancers. */
export type RouterLbFlowType = 'normal' | 'skip_snat' | 'force_snat';

/**
 * build_lb_vip_actions for a router VIP without backends: `drop;`, or the
 * reject with options:reject, after the flag the flow type sets. (A VIP
 * with backends gets `ct_lb_mark(backends=...)`, which parses.)
 *
 * @example routerEmptyVipActions(lb, 'skip_snat') // 'flags.skip_snat_for_lb = 1; drop;'
 */
export function routerEmptyVipActions(lb: LoadBalancer, type: RouterLbFlowType): string {
  const base =
    lb.options['reject'] === 'true'
      ? 'reg0 = 0; reject { outport <-> inport; next(pipeline=egress,table=LR_OUT_SNAT);};'
      : 'drop;';
  if (type === 'normal') return base;
  return `flags.${type}_for_lb = 1; ${base}`;
}
