import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pythonWithKubernetes } from '../kube/apiserver/testing/clients.ts';
import { type ServedForTest, serveForTest } from './testing/serve.ts';

const run = promisify(execFile);
const python = pythonWithKubernetes();
let served: ServedForTest;

/**
 * Python's `kubernetes` client (Debian's python3-kubernetes) against the
 * served cluster: it lists pods, opens a watch, creates a ConfigMap and a
 * pod, and prints what the watch saw, one JSON line per result.
 */
const SCRIPT = `
import json, sys, threading
from kubernetes import client, config, watch
config.load_kube_config(sys.argv[1])
v1 = client.CoreV1Api()
pods = v1.list_pod_for_all_namespaces()
print(json.dumps({"list": sorted(p.metadata.namespace + "/" + p.metadata.name for p in pods.items)}))
rv = pods.metadata.resource_version
seen = []
def follow():
    w = watch.Watch()
    for e in w.stream(v1.list_namespaced_pod, "default", resource_version=rv, timeout_seconds=5):
        seen.append(e["type"] + " " + e["object"].metadata.name)
        if len(seen) == 1:
            w.stop()
t = threading.Thread(target=follow)
t.start()
cm = client.V1ConfigMap(metadata=client.V1ObjectMeta(name="from-python"), data={"k": "v"})
made = v1.create_namespaced_config_map("default", cm)
print(json.dumps({"created": made.metadata.name, "uid": bool(made.metadata.uid)}))
pod = client.V1Pod(metadata=client.V1ObjectMeta(name="py-pod"),
                   spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="nginx")]))
v1.create_namespaced_pod("default", pod)
t.join()
print(json.dumps({"watched": seen}))
try:
    v1.read_namespaced_config_map("absent", "default")
except client.exceptions.ApiException as e:
    print(json.dumps({"status": e.status, "reason": json.loads(e.body)["reason"]}))
`;

beforeAll(async () => {
  served = await serveForTest(['scenarios/quickstart.yaml'], 'kovn-serve-py-');
});
afterAll(async () => {
  await served?.close();
});

describe.skipIf(python === undefined)("kovn sim serve with Python's kubernetes client", () => {
  it('lists, watches and creates', async () => {
    const r = await run(python!, ['-c', SCRIPT, served.kubeconfig], {
      env: { PATH: process.env.PATH ?? '', HOME: served.dir },
    });
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0].list).toContain('data/db-0');
    expect(lines[0].list).toHaveLength(4);
    expect(lines[1]).toEqual({ created: 'from-python', uid: true });
    expect(lines[2].watched).toEqual(['ADDED py-pod']);
    expect(lines[3]).toEqual({ status: 404, reason: 'NotFound' });
  });
});
