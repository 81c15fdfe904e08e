/**
 * Test-only: the sessionAffinity scenario the ovn world's test
 * (ovn-world.test.ts, on both worlds) and `kovn trace`'s test (trace.test.ts)
 * share. A Service with sessionAffinity: ClientIP (the session load
 * balancers, affinity_timeout 10800): the first packet of each client
 * learns a backend and is dropped (OVN 23.03), so TCP and SCTP are answered
 * by their retransmission and UDP is not. SCTP is on a VIP whose port is the
 * target port: the userspace datapath translates no SCTP port, so a
 * port-mapping VIP would never meet its learn flow there.
 */
import { assembleScenario, type LoadedScenario, readScenarioText } from './load.ts';

export const SESSION_AFFINITY = `
apiVersion: apps/v1
kind: Deployment
metadata: { name: web, namespace: shop }
spec:
  replicas: 2
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec: { containers: [{ name: web, image: nginx }] }
---
apiVersion: v1
kind: Service
metadata: { name: web, namespace: shop }
spec:
  clusterIP: 10.96.0.10
  selector: { app: web }
  sessionAffinity: ClientIP
  ports:
    - { name: http, port: 80, targetPort: 8080 }
    - { name: syslog, port: 514, targetPort: 514, protocol: UDP }
    - { name: sig, port: 2905, targetPort: 2905, protocol: SCTP }
---
apiVersion: v1
kind: Pod
metadata: { name: client, namespace: default }
spec: { containers: [{ name: c, image: busybox }] }
---
apiVersion: kovn.io/v1alpha1
kind: Scenario
metadata: { name: session-affinity }
spec:
  expect:
    - { from: default/client, to: svc/shop/web, protocol: TCP, port: 80, allowed: true }
    - { from: default/client, to: svc/shop/web, protocol: SCTP, port: 2905, allowed: true }
    # A datagram no kernel sends again: the first is the verdict.
    - { from: default/client, to: svc/shop/web, protocol: UDP, port: 514, allowed: false }
`;

/**
 * @example const s = sessionAffinityScenario(); s.expect[0] // the TCP probe to svc/shop/web port 80
 */
export function sessionAffinityScenario(): LoadedScenario {
  return assembleScenario(readScenarioText('session-affinity.yaml', SESSION_AFFINITY), 'session-affinity');
}
