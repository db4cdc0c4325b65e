/**
 * The boot script that installs the static network configuration staged by staticNetworkFiles:
 * upstream's pre-network-manager-config.sh behaviour, written anew in POSIX sh. It runs before
 * NetworkManager (full ISO) or in the initramfs (minimal ISO), finds the host directories whose MAC
 * addresses belong to this machine and installs their keyfiles under the real NIC names.
 * Environment overrides (SYSFS_NET, CONFIG_DIR, NM_DIR, SETTLE_SECONDS, SETTLE_TIMEOUT) exist so
 * the tests can run it against a fake sysfs tree.
 */

export const PRE_NETWORK_SCRIPT_PATH = '/usr/local/bin/pre-network-manager-config.sh';

export const PRE_NETWORK_SCRIPT = `#!/bin/sh
# Installs the static network configuration meant for this machine before NetworkManager starts.
#
# $CONFIG_DIR/host<N>/ holds, for each static_network_config entry, NetworkManager keyfiles named
# <interface>.nmconnection written with the user's logical NIC names, and mac_interface.ini with
# lines "<mac>=<logical name>". A host directory is meant for this machine when at least one of its
# MAC addresses belongs to a NIC here. Its keyfiles are installed with every logical name replaced
# by the name of the NIC that has the mapped MAC, in file names and in values (interface-name=,
# parent=, ...). Always exits 0: a machine without a match boots as it would without this script.
#
# Tests override: SYSFS_NET, CONFIG_DIR, NM_DIR, SETTLE_SECONDS, SETTLE_TIMEOUT.
set -u
umask 077

SYSFS_NET="\${SYSFS_NET:-/sys/class/net}"
CONFIG_DIR="\${CONFIG_DIR:-/etc/assisted/network}"
if [ -z "\${NM_DIR:-}" ]; then
  # In the initramfs (minimal ISO, PXE) coreos-copy-firstboot-network installs profiles from here.
  if [ -f /etc/initrd-release ]; then
    NM_DIR=/etc/coreos-firstboot-network
  else
    NM_DIR=/etc/NetworkManager/system-connections
  fi
fi
SETTLE_SECONDS="\${SETTLE_SECONDS:-3}"
SETTLE_TIMEOUT="\${SETTLE_TIMEOUT:-30}"

log() {
  echo "pre-network-manager-config: $*"
}

# One "<nic> <mac>" line per NIC present, MACs in lower case.
list_nics() {
  for dir in "$SYSFS_NET"/*; do
    nic=\${dir##*/}
    [ "$nic" = lo ] && continue
    # Names are later written by sed; skip any that could be read as sed syntax.
    case $nic in *[!A-Za-z0-9_.-]*) continue ;; esac
    [ -r "$dir/address" ] || continue
    mac=$(tr 'A-F' 'a-f' < "$dir/address")
    if [ -n "$mac" ] && [ "$mac" != 00:00:00:00:00:00 ]; then
      printf '%s %s\\n' "$nic" "$mac"
    fi
  done
}

# Drivers may still be registering NICs: wait until the list has not changed for SETTLE_SECONDS.
wait_for_nics() {
  previous=$(list_nics)
  stable=0
  waited=0
  while [ "$stable" -lt "$SETTLE_SECONDS" ] && [ "$waited" -lt "$SETTLE_TIMEOUT" ]; do
    sleep 1
    waited=$((waited + 1))
    current=$(list_nics)
    if [ -n "$current" ] && [ "$current" = "$previous" ]; then
      stable=$((stable + 1))
    else
      stable=0
      previous=$current
    fi
  done
  [ "$stable" -ge "$SETTLE_SECONDS" ] || log "NICs still changing after \${SETTLE_TIMEOUT}s, continuing"
}

nic_with_mac() {
  printf '%s\\n' "$NICS" | while read -r nic mac; do
    if [ "$mac" = "$1" ]; then
      echo "$nic"
      break
    fi
  done
}

# Prints "<logical> <nic>" for each MAC of the mapping file that a NIC here has.
present_renames() {
  while IFS='=' read -r mac logical || [ -n "$mac" ]; do
    mac=$(printf '%s' "$mac" | tr 'A-F' 'a-f')
    if [ -z "$mac" ] || [ -z "$logical" ]; then continue; fi
    nic=$(nic_with_mac "$mac")
    [ -n "$nic" ] && printf '%s %s\\n' "$logical" "$nic"
  done < "$1"
}

# Installs one host directory's keyfiles into $work/files under their real NIC names.
stage_host() {
  host_dir=$1
  renames=$2
  rules="$work/rules.sed"
  : > "$rules"
  # Two steps through placeholders, so that swapped names (eth0 is really eth1 and eth1 eth0)
  # are not renamed twice.
  index=0
  while read -r logical nic; do
    printf 's/=%s$/=@%s@/\\ns/=%s\\\\./=@%s@./\\n' "$logical" "$index" "$logical" "$index" >> "$rules"
    index=$((index + 1))
  done <<RENAMES
$renames
RENAMES
  index=0
  while read -r logical nic; do
    printf 's/=@%s@/=%s/\\n' "$index" "$nic" >> "$rules"
    index=$((index + 1))
  done <<RENAMES
$renames
RENAMES
  targets=""
  for file in "$host_dir"/*.nmconnection; do
    [ -f "$file" ] || continue
    base=\${file##*/}
    prefix=\${base%%.*}
    target=$base
    nic=$(printf '%s\\n' "$renames" | while read -r logical real; do
      [ "$logical" = "$prefix" ] && echo "$real" && break
    done)
    if [ -n "$nic" ]; then
      target="$nic.\${base#*.}"
      name=\${target%.nmconnection}
      # Kernel interface names stop at 15 characters: shorten the NIC part of a long vlan name.
      if [ "$name" != "$nic" ] && [ "\${#name}" -gt 15 ]; then
        vlan_id=\${name##*.}
        short="$(printf '%s' "$nic" | cut -c "1-$((14 - \${#vlan_id}))").$vlan_id"
        printf 's/=%s$/=%s/\\n' "$(printf '%s' "$name" | sed 's/[.]/\\\\./g')" "$short" >> "$rules"
        target="$short.nmconnection"
      fi
    fi
    targets="$targets$file $target
"
  done
  printf '%s' "$targets" | while read -r file target; do
    if [ -e "$work/files/$target" ]; then
      log "$target already comes from another host directory; skipping the one in $host_dir"
      continue
    fi
    sed -f "$rules" "$file" > "$work/files/$target"
    log "prepared $target from $file"
  done
}

if [ ! -d "$CONFIG_DIR" ]; then
  log "$CONFIG_DIR does not exist, nothing to do"
  exit 0
fi
wait_for_nics
NICS=$(list_nics)
work=$(mktemp -d) || exit 0
trap 'rm -rf "$work"' EXIT
mkdir "$work/files"

for host_dir in "$CONFIG_DIR"/host*; do
  [ -d "$host_dir" ] || continue
  if [ ! -f "$host_dir/mac_interface.ini" ]; then
    log "$host_dir has no mac_interface.ini, skipped"
    continue
  fi
  renames=$(present_renames "$host_dir/mac_interface.ini")
  [ -n "$renames" ] || continue
  log "\${host_dir##*/} is for this machine"
  stage_host "$host_dir" "$renames"
done

set -- "$work"/files/*.nmconnection
if [ -e "$1" ]; then
  mkdir -p "$NM_DIR"
  # Profiles generated earlier in boot (default DHCP ones) would compete with ours.
  rm -f "$NM_DIR"/*.nmconnection
  for file in "$@"; do
    cp "$file" "$NM_DIR/" && chmod 600 "$NM_DIR/\${file##*/}"
    log "installed $NM_DIR/\${file##*/}"
  done
else
  log "no host directory matches the MAC addresses of this machine"
fi
exit 0
`;
