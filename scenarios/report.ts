/**
 * `kovn sim run --report out.html`: a scenario run as one self-contained
 * page (no network access: styles and the one small script are inline).
 *
 * - A picture of the topology as SVG: each VPC with its router and its
 *   subnets, the pods on each subnet (name, addresses, node), and the
 *   Services with a dashed line to each ready endpoint. Every VPC, router,
 *   subnet, pod and Service is an element with `data-kind`
 *   (vpc|router|subnet|pod|service) and `data-name`; pods a failing probe
 *   names are outlined in red.
 * - The probe results, failing ones first and highlighted, each with its
 *   trace one click away (a `<details>`: the first packet stage by stage,
 *   the retransmission and the reply, the reason when denied, the note).
 * - Numbers a test can hold the page to: `#summary` carries data-total,
 *   data-ok and data-failed; once laid out, the script records on <html>
 *   (`data-render-check`) how many drawn elements it found and how many have
 *   no area, so a headless browser can tell the picture was drawn.
 *
 * The inventory is what the probes resolved against after each step (the
 * union of them), so a pod deleted by a later step is still drawn.
 */
import { formatWarning, type Warning } from '../kube/objects/warnings.ts';
import { formatTrace } from '../sim/trace.ts';
import type { ProbeIndex } from './probe.ts';
import { resultRank, resultStatus } from './results.ts';
import type { ProbeResult } from './run.ts';
import type { TracedPacket } from './trace-probe.ts';

interface PodInfo {
  readonly key: string;
  readonly ips: readonly string[];
  readonly node: string;
}

interface SubnetInfo {
  readonly name: string;
  readonly cidrs: readonly string[];
  readonly pods: Map<string, PodInfo>;
}

export interface Inventory {
  /** VPC (its router) → its subnets. */
  readonly vpcs: Map<string, Map<string, SubnetInfo>>;
  readonly services: Map<string, { readonly clusterIPs: readonly string[]; readonly endpoints: Set<string> }>;
}

/** Collects the inventory from each step's probe index (pass `add` as the runner's onConverged). */
export class InventoryCollector {
  readonly inventory: Inventory = { vpcs: new Map(), services: new Map() };

  add(ix: ProbeIndex): void {
    const { vpcs, services } = this.inventory;
    const subnetOf = (router: string, name: string, cidrs: readonly string[]) => {
      let v = vpcs.get(router);
      if (v === undefined) vpcs.set(router, (v = new Map()));
      let s = v.get(name);
      if (s === undefined) v.set(name, (s = { name, cidrs, pods: new Map() }));
      return s;
    };
    for (const [name, s] of ix.subnets) subnetOf(s.router, name, s.cidrs);
    const byPort = new Map<string, string>();
    for (const p of ix.pods.values()) {
      subnetOf(p.router, p.subnet, ix.subnets.get(p.subnet)?.cidrs ?? []).pods.set(p.key, {
        key: p.key,
        ips: p.ips,
        node: p.node,
      });
      byPort.set(p.port, p.key);
    }
    for (const svc of ix.services.values()) {
      let s = services.get(svc.key);
      if (s === undefined) services.set(svc.key, (s = { clusterIPs: svc.clusterIPs, endpoints: new Set() }));
      for (const list of svc.endpoints.values())
        for (const e of list) {
          const pod = byPort.get(e.port);
          if (pod !== undefined) s.endpoints.add(pod);
        }
    }
  }
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const POD_H = 34;
const SUBNET_W = 240;
const GAP = 16;

interface Box {
  readonly x: number;
  readonly y: number;
}

/** The SVG and where each pod was drawn (for the Service lines). */
function drawTopology(inv: Inventory, failing: ReadonlySet<string>): string {
  const parts: string[] = [];
  const podAt = new Map<string, Box>();
  let x = GAP;
  let bottom = 0;
  const vpcs = [...inv.vpcs.entries()].sort(([a], [b]) => a.localeCompare(b));
  for (const [vpc, subnets] of vpcs) {
    const list = [...subnets.values()].sort((a, b) => a.name.localeCompare(b.name));
    const width = Math.max(1, list.length) * (SUBNET_W + GAP) + GAP;
    const tallest = Math.max(0, ...list.map((s) => s.pods.size));
    const height = 40 + 44 + 30 + 54 + tallest * POD_H + GAP;
    const top = GAP;
    parts.push(
      `<g data-kind="vpc" data-name="${esc(vpc)}"><rect class="vpc" x="${x}" y="${top}" width="${width}" height="${height}" rx="10"/>` +
        `<text class="title" x="${x + 12}" y="${top + 24}">VPC ${esc(vpc)}</text></g>`,
    );
    const rx = x + width / 2 - 80;
    const ry = top + 40;
    parts.push(
      `<g data-kind="router" data-name="${esc(vpc)}"><rect class="router" x="${rx}" y="${ry}" width="160" height="32" rx="16"/>` +
        `<text class="center" x="${rx + 80}" y="${ry + 21}">router ${esc(vpc)}</text></g>`,
    );
    list.forEach((s, i) => {
      const sx = x + GAP + i * (SUBNET_W + GAP);
      const sy = ry + 32 + 30;
      parts.push(`<line class="link" x1="${rx + 80}" y1="${ry + 32}" x2="${sx + SUBNET_W / 2}" y2="${sy}"/>`);
      const h = 54 + s.pods.size * POD_H;
      parts.push(
        `<g data-kind="subnet" data-name="${esc(s.name)}"><rect class="subnet" x="${sx}" y="${sy}" width="${SUBNET_W}" height="${h}" rx="6"/>` +
          `<text class="title" x="${sx + 10}" y="${sy + 20}">${esc(s.name)}</text>` +
          `<text class="small" x="${sx + 10}" y="${sy + 38}">${esc(s.cidrs.join(', '))}</text></g>`,
      );
      [...s.pods.values()]
        .sort((a, b) => a.key.localeCompare(b.key))
        .forEach((p, j) => {
          const py = sy + 48 + j * POD_H;
          const cls = failing.has(p.key) ? 'pod failing' : 'pod';
          podAt.set(p.key, { x: sx + 8, y: py + 14 });
          parts.push(
            `<g data-kind="pod" data-name="${esc(p.key)}"><rect class="${cls}" x="${sx + 8}" y="${py}" width="${SUBNET_W - 16}" height="${POD_H - 4}" rx="4"/>` +
              `<text x="${sx + 16}" y="${py + 13}">${esc(p.key)}</text>` +
              `<text class="small" x="${sx + 16}" y="${py + 26}">${esc(p.ips.join(', '))}${p.node ? ` on ${esc(p.node)}` : ''}</text></g>`,
          );
        });
    });
    x += width + GAP;
    bottom = Math.max(bottom, top + height);
  }
  const services = [...inv.services.entries()].sort(([a], [b]) => a.localeCompare(b));
  const perRow = Math.max(1, Math.floor((Math.max(x, 600) - GAP) / (220 + GAP)));
  const svcTop = bottom + 60;
  services.forEach(([key, s], i) => {
    const sx = GAP + (i % perRow) * (220 + GAP);
    const sy = svcTop + Math.floor(i / perRow) * 70;
    for (const pod of [...s.endpoints].sort()) {
      const at = podAt.get(pod);
      if (at) parts.push(`<line class="endpoint" x1="${sx + 110}" y1="${sy}" x2="${at.x}" y2="${at.y}"/>`);
    }
    parts.push(
      `<g data-kind="service" data-name="${esc(key)}"><rect class="service" x="${sx}" y="${sy}" width="220" height="44" rx="6"/>` +
        `<text x="${sx + 10}" y="${sy + 18}">svc/${esc(key)}</text>` +
        `<text class="small" x="${sx + 10}" y="${sy + 34}">${esc(s.clusterIPs.join(', '))} · ${s.endpoints.size} endpoint(s)</text></g>`,
    );
  });
  const rows = services.length === 0 ? 0 : Math.ceil(services.length / perRow);
  const height = (services.length === 0 ? bottom : svcTop + rows * 70) + GAP;
  const width = Math.max(x, GAP + Math.min(services.length, perRow) * (220 + GAP), 600);
  // Lines first, boxes over them.
  const lines = parts.filter((p) => p.startsWith('<line'));
  const boxes = parts.filter((p) => !p.startsWith('<line'));
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" id="topology" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">` +
    `${boxes.filter((b) => b.includes('data-kind="vpc"')).join('')}${lines.join('')}` +
    `${boxes.filter((b) => !b.includes('data-kind="vpc"')).join('')}</svg>`
  );
}

function traceText(t: TracedPacket, title: string): string {
  const head = `${title}: ${t.verdict}${t.outport ? ` at ${t.outport}` : ''}`;
  return [head, formatTrace(t.stages), ...(t.reason ? [`why: ${t.reason}`] : [])].filter(Boolean).join('\n');
}

export interface ReportInput {
  readonly scenario: string;
  readonly backend: string;
  readonly results: readonly ProbeResult[];
  readonly inventory: Inventory;
  /** What kovn did not act on or refused: shown above the results. */
  readonly warnings?: readonly Warning[];
}

const CSS = `
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1d2430}
h1{font-size:20px;margin:0 0 4px}
#summary{font-size:16px;margin:4px 0 16px}
#summary.bad{color:#b42318}
svg text{font-size:12px;fill:#1d2430}
svg text.title{font-weight:600;font-size:13px}
svg text.small{font-size:11px;fill:#4a5568}
svg text.center{text-anchor:middle}
rect.vpc{fill:#f4f7fb;stroke:#8aa4c8;stroke-width:1.5}
rect.router{fill:#e8eefc;stroke:#3b5bdb}
rect.subnet{fill:#fff;stroke:#94a3b8}
rect.pod{fill:#eefaf1;stroke:#2f9e44}
rect.pod.failing{fill:#fff1f0;stroke:#d92d20;stroke-width:2}
rect.service{fill:#fff8e6;stroke:#e8a100}
line.link{stroke:#3b5bdb;stroke-width:1.5}
line.endpoint{stroke:#e8a100;stroke-dasharray:4 3}
table{border-collapse:collapse;margin-top:16px;width:100%}
th,td{border-bottom:1px solid #e2e8f0;padding:4px 8px;text-align:left;vertical-align:top}
tr.fail td{background:#fff1f0}
tr.unsure td{background:#fff8e1}
#warnings{border:1px solid #e0b000;background:#fffbeb;padding:4px 12px;margin:12px 0}
#warnings h2{font-size:15px;margin:6px 0}
td.verdict.allowed{color:#2f9e44}
td.verdict.denied{color:#b42318}
pre{background:#f8fafc;padding:8px;overflow:auto;font-size:12px;margin:4px 0}
summary{cursor:pointer;color:#3b5bdb}
`;

const CHECK_SCRIPT = `
addEventListener('load', () => {
  const els = [...document.querySelectorAll('[data-kind]')];
  const empty = els.filter((e) => { const r = e.getBoundingClientRect(); return r.width === 0 || r.height === 0; });
  document.documentElement.dataset.renderCheck = JSON.stringify({ elements: els.length, empty: empty.length });
});
`;

/** Failing first, then unsure, then the rest (as the terminal table). */
/**
 * @example writeFileSync('out.html', renderReport({ scenario: 'quickstart', backend: 'sim', results, inventory }))
 */
export function renderReport(input: ReportInput): string {
  const failed = input.results.filter((r) => !r.ok);
  const failingPods = new Set(failed.flatMap((r) => [r.from, r.to]));
  const rows = [...input.results]
    .map((r, i) => ({ r, i }))
    .sort((a, b) => resultRank(a.r) - resultRank(b.r) || a.i - b.i)
    .map(({ r, i }) => {
      const what = `${r.protocol}${r.port !== undefined ? `/${r.port}` : ''}`;
      const got = r.allowed ? 'allowed' : 'denied';
      const trace = r.trace
        ? [
            traceText(r.trace, 'first packet'),
            ...(r.trace.retransmission ? [traceText(r.trace.retransmission, 'retransmission')] : []),
            ...(r.trace.reply ? [traceText(r.trace.reply, 'reply')] : []),
          ].join('\n\n')
        : (r.reason ?? 'no packet: decided before the network');
      const status = resultStatus(r);
      const cls = status.toLowerCase();
      const why = [r.unsure !== undefined ? `unsure: ${r.unsure}` : r.reason, r.note].filter(Boolean).join('; ');
      return (
        `<tr class="${cls}" data-probe="${i}" data-ok="${r.ok}" data-allowed="${r.allowed}"${r.unsure !== undefined ? ' data-unsure="true"' : ''}>` +
        `<td>${status}</td><td>${r.step}</td><td>${esc(r.from)}</td><td>${esc(r.to)}</td><td>${what}</td>` +
        `<td>${r.expected ? 'allowed' : 'denied'}</td><td class="verdict ${got}">${got}</td>` +
        `<td>${esc(why)}<details><summary>trace</summary><pre>${esc(trace)}</pre></details></td></tr>`
      );
    })
    .join('\n');
  const total = input.results.length;
  const ok = total - failed.length;
  const unsure = input.results.filter((r) => r.unsure !== undefined).length;
  const warnings = input.warnings ?? [];
  const warningList =
    warnings.length === 0
      ? ''
      : `<section id="warnings" data-count="${warnings.length}"><h2>${warnings.length} warning${warnings.length === 1 ? '' : 's'}</h2>
<p>kovn did not act on these, or refused them; a probe whose verdict may depend on one is marked unsure and does not pass.</p>
<ul>${warnings.map((w) => `<li data-code="${esc(w.code)}">${esc(formatWarning(w))}</li>`).join('')}</ul></section>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>kovn: ${esc(input.scenario)} on ${esc(input.backend)}</title>
<style>${CSS}</style></head>
<body>
<h1>kovn: scenario ${esc(input.scenario)} on ${esc(input.backend)}</h1>
<p id="summary" class="${failed.length ? 'bad' : 'good'}" data-total="${total}" data-ok="${ok}" data-failed="${failed.length}" data-unsure="${unsure}" data-warnings="${warnings.length}">${ok}/${total} probes as expected${failed.length - unsure ? `, ${failed.length - unsure} not` : ''}${unsure ? `, ${unsure} unsure` : ''}${warnings.length ? `, ${warnings.length} warning${warnings.length === 1 ? '' : 's'}` : ''}</p>
${warningList}
${drawTopology(input.inventory, failingPods)}
<table id="results"><thead><tr><th></th><th>step</th><th>from</th><th>to</th><th>probe</th><th>expected</th><th>got</th><th>why, and the trace</th></tr></thead>
<tbody>
${rows}
</tbody></table>
<script>${CHECK_SCRIPT}</script>
</body></html>
`;
}
