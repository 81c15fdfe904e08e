/**
 * What the Containerfile puts in the image is what deploy/'s scripts call:
 * every OVN and Open vSwitch tool a script runs belongs to a Debian package
 * the Containerfile installs, or to one of their dependencies (asked of
 * dpkg on this machine, whose Debian 12 packages are the image's); and the
 * `kovn` the Containerfile links onto the PATH runs through that link.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { requireOvn } from '../../backends/ovn/control-plane/index.ts';
import { DEPLOY, ROOT } from './manifests.ts';

const run = promisify(execFile);
const containerfile = () => readFile(join(DEPLOY, 'Containerfile'), 'utf8');

/** The packages of the Containerfile's `apt-get install` (its continuation lines included). */
async function installed(): Promise<string[]> {
  const text = (await containerfile()).replace(/\\\n/g, ' ');
  const cmd = /apt-get install ([^&]*)/.exec(text)?.[1] ?? '';
  return cmd.split(/\s+/).filter((w) => w !== '' && !w.startsWith('-'));
}

/** The OVN and Open vSwitch tools deploy/'s scripts and probes run: `ovn-appctl`, `/usr/share/ovn/scripts/ovn-ctl`. */
async function toolsCalled(): Promise<string[]> {
  const scripts = (await readdir(join(DEPLOY, 'scripts'))).filter((f) => f.endsWith('.sh'));
  const out = new Set<string>();
  for (const s of scripts) {
    const text = await readFile(join(DEPLOY, 'scripts', s), 'utf8');
    // Comments and quoted strings (messages, arguments) name no command here.
    const code = text.replace(/^\s*#.*$/gm, '').replace(/"[^"]*"/g, '""');
    for (const m of code.matchAll(/(\/usr\/share\/\S+?-ctl)\b|(?:^|[\s;(])((?:ovn|ovs)-[a-z]+)(?=\s)/gm))
      out.add(m[1] ?? m[2]!);
  }
  return [...out].sort();
}

/** The installed package owning a tool (a path, or a command on the PATH). */
async function ownerOf(tool: string): Promise<string> {
  const path = tool.startsWith('/') ? tool : (await run('sh', ['-c', `command -v ${tool}`])).stdout.trim();
  return (await run('dpkg', ['-S', path])).stdout.split(':')[0]!.trim();
}

/** `pkgs` and every installed package they depend on, transitively (an alternative: any installed one). */
async function closure(pkgs: readonly string[]): Promise<Set<string>> {
  const seen = new Set<string>();
  const queue = [...pkgs];
  while (queue.length > 0) {
    const p = queue.pop()!;
    if (seen.has(p)) continue;
    // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own ${Field} format, not a template.
    const q = await run('dpkg-query', ['-W', '-f=${Depends},${Pre-Depends}', p]).catch(() => undefined);
    if (q === undefined) continue;
    seen.add(p);
    for (const dep of q.stdout.split(','))
      for (const alt of dep.split('|')) {
        const name = alt.trim().split(/[\s:(]/)[0];
        if (name) queue.push(name);
      }
  }
  return seen;
}

describe.skipIf(!requireOvn('deploy: the image'))('the image the Containerfile builds', () => {
  it('has every OVN and Open vSwitch tool the scripts call, from its packages or their dependencies', async () => {
    const tools = await toolsCalled();
    expect(tools).toEqual([
      '/usr/share/openvswitch/scripts/ovs-ctl',
      '/usr/share/ovn/scripts/ovn-ctl',
      'ovn-appctl',
      'ovs-appctl',
      'ovs-vsctl',
    ]);
    const packages = await installed();
    expect(packages).toEqual(expect.arrayContaining(['openvswitch-switch', 'ovn-central', 'ovn-host']));
    const inImage = await closure(packages);
    for (const t of tools) expect(inImage, `${t} (${await ownerOf(t)})`).toContain(await ownerOf(t));
  });

  it('runs kovn through the link it puts on the PATH', async () => {
    const link = /ln -s (\S+) (\S+)/.exec(await containerfile());
    expect(link?.slice(1)).toEqual(['/kovn/cli/bin/kovn.js', '/usr/local/bin/kovn']);
    const dir = await mkdtemp(join(tmpdir(), 'kovn-image-link-'));
    try {
      await symlink(join(ROOT, 'cli', 'bin', 'kovn.js'), join(dir, 'kovn'));
      const version = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')).version as string;
      expect((await run(join(dir, 'kovn'), ['--version'])).stdout.trim()).toBe(version);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
