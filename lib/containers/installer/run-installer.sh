#!/bin/sh
# Entrypoint of the installer task: fetch the openshift-install of the cluster's release, then run the
# installation-files program with it. Inputs (set by the install-cluster state machine):
#   RELEASE_IMAGE      e.g. quay.io/openshift-release-dev/ocp-release:4.16.3-x86_64
#   OPENSHIFT_VERSION  the cluster's version; used when the release image names no x.y.z tag
# Optional:
#   OPENSHIFT_MIRROR   base URL of the client mirror (default: the public OpenShift mirror, x86_64 clients)
#   OPENSHIFT_INSTALL  an openshift-install already present: skip the download
#   INSTALLATION_FILES_ENTRY  the program to run (default: the bundled one in the image)
set -eu

log() { printf '%s %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$*"; }
fail() { log "failed: $*"; exit 1; }

entry="${INSTALLATION_FILES_ENTRY:-/opt/assisted/installation-files.mjs}"
mirror="${OPENSHIFT_MIRROR:-https://mirror.openshift.com/pub/openshift-v4/x86_64/clients/ocp}"

# The release version: the release image's tag (4.16.3-x86_64 → 4.16.3), else OPENSHIFT_VERSION.
release_version() {
  tag=""
  case "${RELEASE_IMAGE:-}" in
    *@*) ;;                                   # pinned by digest: the tag says nothing
    *:*) tag="${RELEASE_IMAGE##*:}" ;;
  esac
  for candidate in "${tag%%-*}" "${OPENSHIFT_VERSION:-}"; do
    if printf '%s' "$candidate" | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+([.-][0-9A-Za-z.]+)?$'; then
      printf '%s' "$candidate"
      return 0
    fi
  done
  return 1
}

if [ -z "${OPENSHIFT_INSTALL:-}" ]; then
  version="$(release_version)" || fail "cannot tell the OpenShift release from RELEASE_IMAGE='${RELEASE_IMAGE:-}' or OPENSHIFT_VERSION='${OPENSHIFT_VERSION:-}': need an x.y.z version"
  work="$(mktemp -d "${TMPDIR:-/tmp}/openshift-install-${version}.XXXXXX")"
  base="${mirror%/}/${version}"
  log "downloading openshift-install ${version} from ${base}"
  # Bounded: a stalled mirror fails the task (and the workflow says why) instead of hanging it.
  curl -fsSL --retry 3 --connect-timeout 20 --max-time 900 -o "${work}/sha256sum.txt" "${base}/sha256sum.txt" \
    || fail "could not download ${base}/sha256sum.txt"
  curl -fsSL --retry 3 --connect-timeout 20 --max-time 1800 -o "${work}/openshift-install-linux.tar.gz" "${base}/openshift-install-linux.tar.gz" \
    || fail "could not download ${base}/openshift-install-linux.tar.gz"
  # The mirror lists the archive under its plain and its versioned name; either sum is the same file's.
  expected="$(awk -v versioned="openshift-install-linux-${version}.tar.gz" '{ name = $2; sub(/^\*/, "", name) } name == "openshift-install-linux.tar.gz" || name == versioned { print $1; exit }' "${work}/sha256sum.txt")"
  [ -n "$expected" ] || fail "sha256sum.txt at ${base} lists no openshift-install-linux.tar.gz"
  actual="$(sha256sum "${work}/openshift-install-linux.tar.gz" | awk '{ print $1 }')"
  [ "$expected" = "$actual" ] || fail "openshift-install-linux.tar.gz checksum mismatch (expected ${expected}, got ${actual})"
  tar -xzf "${work}/openshift-install-linux.tar.gz" -C "$work" openshift-install \
    || fail "the archive from ${base} holds no openshift-install"
  rm -f "${work}/openshift-install-linux.tar.gz"
  chmod 0755 "${work}/openshift-install"
  OPENSHIFT_INSTALL="${work}/openshift-install"
  export OPENSHIFT_INSTALL
fi

# The installer generates for exactly the cluster's release image, whatever payload it was built with.
if [ -n "${RELEASE_IMAGE:-}" ]; then
  OPENSHIFT_INSTALL_RELEASE_IMAGE_OVERRIDE="$RELEASE_IMAGE"
  export OPENSHIFT_INSTALL_RELEASE_IMAGE_OVERRIDE
fi

exec node "$entry"
