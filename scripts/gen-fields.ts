// Writes docs/fields.md from the support tables (controller/kube/support/).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderFieldsDoc } from '../controller/kube/support/doc.ts';

writeFileSync(join(import.meta.dirname, '..', 'docs', 'fields.md'), renderFieldsDoc());
