#!/bin/sh
# ovn-central's probe: both databases answer on their control sockets as
# members of their raft cluster, and ovn-northd answers.
set -eu
OVN_RUNDIR=${OVN_RUNDIR:-/var/run/ovn}
ovn-appctl -t "$OVN_RUNDIR/ovnnb_db.ctl" cluster/status OVN_Northbound >/dev/null
ovn-appctl -t "$OVN_RUNDIR/ovnsb_db.ctl" cluster/status OVN_Southbound >/dev/null
ovn-appctl -t "$OVN_RUNDIR/ovn-northd.$(cat "$OVN_RUNDIR/ovn-northd.pid").ctl" status >/dev/null
