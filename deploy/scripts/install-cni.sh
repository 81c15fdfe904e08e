#!/bin/sh
# kovn-node's init container: installs the CNI plugin and its conflist on the
# host, as Kube-OVN's install-cni does. The plugin is kovn's bundled
# executable (dist/cni/kovn), a JavaScript file: the node binary it runs on
# is installed beside it as kovn-node and named in its first line, so the
# host needs no Node.js of its own. Each file is written under a temporary
# name and renamed: a runtime reading the folder sees the old file or the
# new, whole.
set -eu
KOVN_DIR=${KOVN_DIR:-/kovn}
CNI_BIN_DIR=${CNI_BIN_DIR:-/opt/cni/bin}
CNI_CONF_DIR=${CNI_CONF_DIR:-/etc/cni/net.d}
CNI_CONFLIST=${CNI_CONFLIST:-/etc/kovn/cni/01-kovn.conflist}
NODE_BIN=${NODE_BIN:-$(command -v node)}

install_file() { # source, destination, mode
  cp "$1" "$2.kovn-tmp"
  chmod "$3" "$2.kovn-tmp"
  mv -f "$2.kovn-tmp" "$2"
}

mkdir -p "$CNI_BIN_DIR" "$CNI_CONF_DIR"
install_file "$NODE_BIN" "$CNI_BIN_DIR/kovn-node" 0755
sed "1s|^#!.*|#!$CNI_BIN_DIR/kovn-node|" "$KOVN_DIR/dist/cni/kovn" >"$CNI_BIN_DIR/kovn-cni.kovn-tmp"
chmod 0755 "$CNI_BIN_DIR/kovn-cni.kovn-tmp"
mv -f "$CNI_BIN_DIR/kovn-cni.kovn-tmp" "$CNI_BIN_DIR/kovn-cni"
install_file "$CNI_CONFLIST" "$CNI_CONF_DIR/${CNI_CONFLIST##*/}" 0644
echo "install-cni: $CNI_BIN_DIR/kovn-cni, $CNI_BIN_DIR/kovn-node, $CNI_CONF_DIR/${CNI_CONFLIST##*/}"
