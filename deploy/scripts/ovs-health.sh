#!/bin/sh
# ovs-ovn's probe: conf.db answers, ovs-vswitchd answers, ovn-controller answers.
set -eu
OVS_RUNDIR=${OVS_RUNDIR:-/var/run/openvswitch}
OVN_RUNDIR=${OVN_RUNDIR:-/var/run/ovn}
ovs-vsctl --db="unix:$OVS_RUNDIR/db.sock" --timeout=5 show >/dev/null
ovs-appctl -t "$OVS_RUNDIR/ovs-vswitchd.$(cat "$OVS_RUNDIR/ovs-vswitchd.pid").ctl" version >/dev/null
ovn-appctl -t "$OVN_RUNDIR/ovn-controller.$(cat "$OVN_RUNDIR/ovn-controller.pid").ctl" version >/dev/null
