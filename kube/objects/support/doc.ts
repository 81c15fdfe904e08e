/**
 * docs/fields.md, rendered from the support tables: every field and
 * annotation of every kind kovn reads, with its state. `npm run gen:fields`
 * writes it; a test holds the file to what the tables say.
 */
import type { AnnotationSupport, FieldSupport, KindSupport } from '../support.ts';
import { SUPPORT_TABLES } from '../../registry.ts';

const STATE: Readonly<Record<FieldSupport['state'], string>> = {
  acted: 'acted on',
  limited: 'limited',
  ignored: 'not acted on',
};

const cell = (s: string) => s.replaceAll('|', '\\|');

function row(name: string, e: FieldSupport | AnnotationSupport): string {
  const verdict = e.state === 'acted' ? '' : (e.verdict ?? 'may-change') === 'none' ? 'no' : 'yes';
  return `| \`${cell(name)}\` | ${STATE[e.state]} | ${verdict} | ${cell(e.note ?? '')} |`;
}

function kindSection(k: KindSupport): string[] {
  const out = [`## ${k.kind} (${k.apiVersion})`, ''];
  if ((k.closed ?? []).length > 0)
    out.push(
      `Closed: a field under ${k.closed!.map((c) => `\`${c}\``).join(', ')} not listed here is reported as unknown.`,
      '',
    );
  out.push('| field | state | verdict may change | note |', '| --- | --- | --- | --- |');
  for (const f of k.fields) out.push(row(f.path, f));
  if ((k.annotations ?? []).length > 0) {
    out.push('', '| annotation | state | verdict may change | note |', '| --- | --- | --- | --- |');
    for (const a of k.annotations!) out.push(row(a.key, a));
    if ((k.annotationPrefixes ?? []).length > 0)
      out.push(
        '',
        `Any other annotation under ${k.annotationPrefixes!.map((p) => `\`${p}\``).join(', ')} is reported as one kovn does not know (it changes no verdict).`,
      );
  }
  out.push('');
  return out;
}

/** The whole of docs/fields.md. */
export function renderFieldsDoc(): string {
  return [
    '# What kovn does with each field and annotation',
    '',
    'Generated from the support tables (`kube/objects/support/`) by `npm run gen:fields`; do not edit.',
    '',
    'Every field and annotation kovn reads is in one of three states: **acted on** (as Kube-OVN does);',
    '**limited** (acted on, with the limitation stated; a value the limitation applies to is reported as',
    "`LimitedField`); **not acted on** (a value other than Kube-OVN's default is reported as",
    '`UnsupportedField` or `UnsupportedAnnotation`). Where the verdict of a probe may change with an',
    'entry kovn does not fully act on, a probe from, to or through what it belongs to is `unsure`',
    'and never passes. Core Kubernetes kinds list the fields Kube-OVN or the Kubernetes network model',
    "act on; fields outside the network (a container's image) are read by neither.",
    '',
    ...SUPPORT_TABLES.flatMap(kindSection),
  ].join('\n');
}
