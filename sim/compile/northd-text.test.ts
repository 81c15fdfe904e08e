import { describe, expect, it } from 'vitest';
import { parseMatch } from '../../model/match/index.ts';
import type { ACL, LoadBalancer } from '../../model/topology/index.ts';
import { aclFlows, aclRefusals, actionsRejection, flowRejection, routerEmptyVipActions } from './northd-text.ts';

const acl = (action: ACL['action'], extra: Partial<ACL> = {}): ACL => ({
  attachTo: { kind: 'switch', name: 'ls0' },
  direction: 'from-lport',
  priority: 0,
  match: parseMatch('ip4'),
  action,
  log: false,
  options: {},
  externalIds: {},
  ...extra,
});

describe('OVN action checks (the parts northd pastes)', () => {
  it('drop; only alone (lib/actions.c parse_actions)', () => {
    expect(actionsRejection('drop;')).toBeUndefined();
    expect(actionsRejection('flags.skip_snat_for_lb = 1; drop;')).toBe("Syntax error at `drop' expecting action");
    expect(actionsRejection('drop; next;')).toBe("Syntax error at `next' expecting end of input");
    expect(
      actionsRejection('reg0 = 0; reject { outport <-> inport; next(pipeline=egress,table=5); };'),
    ).toBeUndefined();
    // Inside a nested action list, drop; alone is fine too.
    expect(actionsRejection('flags.skip_snat_for_lb = 1; reject { drop; };')).toBeUndefined();
  });

  it('log(...) arguments as parse_log_arg reads them', () => {
    expect(actionsRejection('log(name="np.default", severity=info, verdict=drop); /* drop */')).toBeUndefined();
    expect(actionsRejection('log(severity=info, verdict=allow, meter="m"); next;')).toBeUndefined();
    expect(actionsRejection('log(name="a"b", severity=info, verdict=drop); /* drop */')).toBe("Syntax error at `b'");
    expect(actionsRejection(`log(name="${'é'.repeat(32)}", verdict=drop);`)).toMatch(/shorter than 64/);
    expect(actionsRejection('log(name="a\\q", verdict=drop);')).toBeDefined();
    expect(actionsRejection('log(severity=info); next;')).toMatch(/expecting verdict/);
  });

  it('a flow is refused for its match or its actions', () => {
    expect(flowRejection({ stage: 'ls_in_acl', match: '(reg0[9] == 1) && ip4 || ip4', actions: 'next;' })).toMatch(
      /must be parenthesized/,
    );
    expect(
      flowRejection({ stage: 'ls_in_acl', match: 'reg0[9] == 1 && (ip4 || ip4)', actions: 'next;' }),
    ).toBeUndefined();
  });
});

describe('consider_acl texts (as `ovn-sbctl lflow-list` shows them for OVN 23.03)', () => {
  it('reject: unparenthesized after the hint on a stateful switch, bare otherwise', () => {
    const [drop, block] = aclFlows(acl('reject'), 'ip4 || ip4', true);
    expect(drop!.match).toBe('(reg0[9] == 1) && ip4 || ip4');
    expect(block!.match).toBe('(reg0[10] == 1) && ip4 || ip4');
    expect(block!.actions).toMatch(/^ct_commit \{ ct_mark\.blocked = 1; \}; {2}reg0 = 0; reject \{/);
    expect(aclFlows(acl('reject'), 'ip4 || ip4', false).map((f) => f.match)).toEqual(['ip4 || ip4']);
    expect(aclRefusals(acl('reject'), 'ip4 || ip4')).toMatchObject({
      stateful: { match: '(reg0[9] == 1) && ip4 || ip4' },
    });
    expect(aclRefusals(acl('reject'), 'ip4 || ip4')?.plain).toBeUndefined();
  });

  it('the other actions parenthesize the match', () => {
    expect(aclFlows(acl('allow-related', { label: 7 }), 'ip4 || ip6', true)).toEqual([
      {
        stage: 'ls_in_acl',
        match: 'reg0[7] == 1 && (ip4 || ip6)',
        actions: 'reg0[1] = 1; reg0[13] = 1; reg3 = 7; next;',
      },
      {
        stage: 'ls_in_acl',
        match: 'reg0[8] == 1 && (ip4 || ip6)',
        actions: 'reg0[1] = 1; reg0[13] = 1; reg3 = 7; next;',
      },
    ]);
    expect(aclFlows(acl('drop', { direction: 'to-lport' }), 'ip4 || ip6', true).map((f) => [f.stage, f.match])).toEqual(
      [
        ['ls_out_acl', 'reg0[9] == 1 && (ip4 || ip6)'],
        ['ls_out_acl', 'reg0[10] == 1 && (ip4 || ip6)'],
      ],
    );
    for (const a of ['allow', 'allow-related', 'allow-stateless', 'drop'] as const)
      expect(aclRefusals(acl(a), 'ip4 || ip4')).toBeUndefined();
  });

  it('a logged ACL carries log(...) in every flow; a quote in its name refuses them all (but not the pre-ACL bypass)', () => {
    const a = acl('allow-stateless', { log: true, name: 'x"' });
    expect(aclFlows(a, 'udp', true)[0]!.actions).toBe('log(name="x"", severity=info, verdict=allow); next;');
    expect(aclRefusals(a, 'udp')).toMatchObject({ plain: {}, stateful: {} });
    expect(aclRefusals(a, 'udp')?.preAcl).toBeUndefined();
  });
});

describe('router VIPs without backends', () => {
  const lb = (options: Record<string, string>): LoadBalancer => ({
    name: 'lb0',
    vips: { '10.96.0.11': '' },
    selectionFields: [],
    options,
    externalIds: {},
  });
  it('the flag goes before drop; (refused) or the reject (fine)', () => {
    expect(routerEmptyVipActions(lb({}), 'normal')).toBe('drop;');
    expect(routerEmptyVipActions(lb({ skip_snat: 'true' }), 'skip_snat')).toBe('flags.skip_snat_for_lb = 1; drop;');
    expect(actionsRejection(routerEmptyVipActions(lb({}), 'force_snat'))).toBeDefined();
    expect(actionsRejection(routerEmptyVipActions(lb({ reject: 'true' }), 'force_snat'))).toBeUndefined();
  });
});
