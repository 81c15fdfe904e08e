// Writes docs/fields.md from the support tables (kube/objects/support/).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderFieldsDoc } from '../kube/objects/support/doc.ts';

writeFileSync(join(import.meta.dirname, '..', 'docs', 'fields.md'), renderFieldsDoc());
