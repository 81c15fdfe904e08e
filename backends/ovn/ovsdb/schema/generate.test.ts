import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { GENERATED_HEADER, columnTs, generateAll, interfaceName } from './generate.ts';
import { parseColumnType } from '../wire/schema.ts';
import { nb, vswitch } from './index.ts';

describe('schema codegen', () => {
  it('the committed *.gen.ts files are up to date with the installed schemas (run `npm run gen:schema`)', () => {
    const all = generateAll();
    expect(all.size).toBe(3);
    for (const [file, text] of all) {
      expect(text.startsWith(`${GENERATED_HEADER}\n`)).toBe(true);
      expect(readFileSync(file, 'utf8'), file).toBe(text);
    }
  });
  it('maps names and column types as documented', () => {
    expect(interfaceName('Logical_Switch_Port')).toBe('LogicalSwitchPort');
    expect(interfaceName('sFlow')).toBe('SFlow');
    expect(interfaceName('NB_Global')).toBe('NBGlobal');
    expect(columnTs(parseColumnType({ key: { type: 'uuid', refTable: 'X' }, min: 0, max: 'unlimited' }))).toBe(
      'readonly string[]',
    );
    expect(columnTs(parseColumnType({ key: 'integer', min: 0, max: 1 }))).toBe('number | undefined');
    expect(columnTs(parseColumnType({ key: 'string', value: 'string', min: 0, max: 'unlimited' }))).toBe(
      'Readonly<Record<string, string>>',
    );
    expect(
      columnTs(parseColumnType({ key: { type: 'string', enum: ['set', ['a', 'b']] }, min: 0, max: 'unlimited' })),
    ).toBe("readonly ('a' | 'b')[]");
  });
  it('exports versions and table names', () => {
    expect(nb.SCHEMA_NAME).toBe('OVN_Northbound');
    expect(nb.SCHEMA_VERSION).toMatch(/^\d+\.\d+\.\d+$/);
    expect(nb.TABLES.Logical_Switch).toBe('Logical_Switch');
    expect(vswitch.TABLES.Open_vSwitch).toBe('Open_vSwitch');
    // A type-level check: the generated interface accepts a well-formed row.
    const row: nb.LogicalSwitch = {
      _uuid: '00000000-0000-0000-0000-000000000001',
      name: 'ls1',
      ports: [],
      acls: [],
      qos_rules: [],
      load_balancer: [],
      load_balancer_group: [],
      dns_records: [],
      forwarding_groups: [],
      copp: undefined,
      other_config: {},
      external_ids: { vendor: 'kovn' },
    };
    expect(row.external_ids.vendor).toBe('kovn');
  });
});
