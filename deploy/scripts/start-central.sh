#!/bin/sh
# ovn-central's container: this node's member of the OVN_Northbound and
# OVN_Southbound raft clusters, and ovn-northd, as Kube-OVN's start-db.sh runs
# them (NB clients on 6641, SB on 6642, raft on 6643 and 6644).
#
# NODE_IPS lists the members (the ovn-central nodes' addresses, IPv4,
# comma-separated); POD_IP is this one's (hostNetwork: its node's). The first
# member creates the clusters, the others join it; a member whose database
# files exist starts from them (a restart). The databases live in
# OVN_DBDIR (a hostPath in the manifest), so they outlive the pod.
# OVN_RUNDIR, OVN_LOGDIR and OVN_DBDIR are ovn-ctl's own.
set -eu
: "${NODE_IPS:?NODE_IPS must list the ovn-central members}"
: "${POD_IP:?POD_IP must be this member's address}"
OVN_CTL=${OVN_CTL:-/usr/share/ovn/scripts/ovn-ctl}
export OVN_RUNDIR="${OVN_RUNDIR:-/var/run/ovn}" OVN_LOGDIR="${OVN_LOGDIR:-/var/log/ovn}"
export OVN_DBDIR="${OVN_DBDIR:-/etc/ovn}"

members=$(echo "$NODE_IPS" | tr ',' ' ')
case " $members " in
*" $POD_IP "*) ;;
*)
  echo "start-central: POD_IP $POD_IP is not one of NODE_IPS ($NODE_IPS)" >&2
  exit 1
  ;;
esac
first=${members%% *}
remotes() {
  out=""
  for ip in $members; do out="$out${out:+,}tcp:$ip:$1"; done
  echo "$out"
}

set -- --db-nb-addr="$POD_IP" --db-sb-addr="$POD_IP" \
  --db-nb-create-insecure-remote=yes --db-sb-create-insecure-remote=yes \
  --db-nb-cluster-local-addr="$POD_IP" --db-sb-cluster-local-addr="$POD_IP" \
  --ovn-northd-nb-db="$(remotes 6641)" --ovn-northd-sb-db="$(remotes 6642)"
if [ "$POD_IP" != "$first" ]; then
  set -- "$@" --db-nb-cluster-remote-addr="$first" --db-sb-cluster-remote-addr="$first"
fi

stop() {
  "$OVN_CTL" stop_northd
  exit 0
}
trap stop TERM INT
"$OVN_CTL" "$@" start_northd

# The container lives as long as its three daemons (each under its --monitor).
while :; do
  for d in ovnnb_db ovnsb_db ovn-northd; do
    if ! kill -0 "$(cat "$OVN_RUNDIR/$d.pid" 2>/dev/null || echo 0)" 2>/dev/null; then
      echo "start-central: $d is not running" >&2
      exit 1
    fi
  done
  sleep 5 &
  wait $! || true
done
