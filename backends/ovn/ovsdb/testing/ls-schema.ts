/**
 * A one-table schema for cache tests: `LS` with a string, a uuid set, a
 * string map and an optional integer, the column kinds the cache treats
 * differently.
 */
import { parseSchema } from '../wire/schema.ts';

export const LS_SCHEMA = parseSchema({
  name: 'T',
  version: '1.0.0',
  tables: {
    LS: {
      columns: {
        name: { type: 'string' },
        ports: { type: { key: { type: 'uuid' }, min: 0, max: 'unlimited' } },
        external_ids: { type: { key: 'string', value: 'string', min: 0, max: 'unlimited' } },
        tag: { type: { key: 'integer', min: 0, max: 1 } },
      },
      isRoot: true,
    },
  },
});
