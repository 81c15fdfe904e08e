/**
 * Object names as the API server validates them (apimachinery's
 * validation): most kinds are DNS-1123 subdomains (at most 253 characters,
 * lower-case alphanumerics, '-' and '.', each dot-separated label starting
 * and ending alphanumeric); Namespaces are DNS-1123 labels (at most 63, no
 * dots); Services are DNS-1035 labels (also starting with a letter). A name
 * with a '/', a quote, a control character or 300 characters is refused
 * here with the rule it breaks, not somewhere deep in a backend.
 */

const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const LABEL_1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/** JSON-quoted, so a control character or an escape sequence shows as text, never acts on a terminal. */
const shown = (name: string) => JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name);

export function dns1123Label(name: string): string | undefined {
  if (name.length > 63) return `${shown(name)} is longer than 63 characters`;
  if (!LABEL.test(name))
    return `${shown(name)} must consist of lower case alphanumeric characters or '-', and start and end with one (a DNS-1123 label)`;
  return undefined;
}

export function dns1123Subdomain(name: string): string | undefined {
  if (name.length > 253) return `${shown(name)} is longer than 253 characters`;
  if (!name.split('.').every((l) => LABEL.test(l)))
    return `${shown(name)} must consist of lower case alphanumeric characters, '-' or '.', and each part start and end with an alphanumeric character (a DNS-1123 subdomain)`;
  return undefined;
}

export function dns1035Label(name: string): string | undefined {
  if (name.length > 63) return `${shown(name)} is longer than 63 characters`;
  if (!LABEL_1035.test(name))
    return `${shown(name)} must consist of lower case alphanumeric characters or '-', start with a letter and end with an alphanumeric character (a DNS-1035 label)`;
  return undefined;
}

/**
 * Why the API server would refuse `name` for `kind`, or undefined.
 *
 * @example nameProblem('Service', '9web') // '"9web" must consist of ... (a DNS-1035 label)'
 */
export function nameProblem(kind: string, name: string): string | undefined {
  if (kind === 'Namespace') return dns1123Label(name);
  if (kind === 'Service') return dns1035Label(name);
  return dns1123Subdomain(name);
}
