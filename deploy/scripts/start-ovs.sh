#!/bin/sh
# ovs-ovn's container: the node's Open vSwitch (ovsdb-server with conf.db,
# ovs-vswitchd on the kernel datapath) and ovn-controller, as Kube-OVN's
# start-ovs.sh runs them. ovn-controller finds its Southbound database,
# encapsulation and chassis name in conf.db's external_ids, which the kovn
# daemon of the same node writes (`kovn daemon --ovn-remote --encap-ip`);
# the system-id is the node's name, as the daemon sets it.
#
# On SIGTERM ovn-controller stops with --restart (its chassis stays in the
# Southbound database, so the node's ports are not torn down for an upgrade)
# and Open vSwitch stops; conf.db lives in a hostPath and outlives the pod.
set -eu
: "${NODE_NAME:?NODE_NAME must be this node's name}"
OVS_CTL=${OVS_CTL:-/usr/share/openvswitch/scripts/ovs-ctl}
OVN_CTL=${OVN_CTL:-/usr/share/ovn/scripts/ovn-ctl}
export OVS_RUNDIR="${OVS_RUNDIR:-/var/run/openvswitch}" OVN_RUNDIR="${OVN_RUNDIR:-/var/run/ovn}"

stop() {
  "$OVN_CTL" --restart stop_controller || true
  "$OVS_CTL" stop || true
  exit 0
}
trap stop TERM INT

"$OVS_CTL" --system-id="$NODE_NAME" --no-mlockall start
"$OVN_CTL" start_controller

while :; do
  for d in "$OVS_RUNDIR/ovsdb-server" "$OVS_RUNDIR/ovs-vswitchd" "$OVN_RUNDIR/ovn-controller"; do
    if ! kill -0 "$(cat "$d.pid" 2>/dev/null || echo 0)" 2>/dev/null; then
      echo "start-ovs: ${d##*/} is not running" >&2
      exit 1
    fi
  done
  sleep 5 &
  wait $! || true
done
