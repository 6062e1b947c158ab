#!/usr/bin/env bash
# Builds the droplet agent as a Debian package, droplet_<version>_<arch>.deb, with dpkg-deb.
#
# Contents: the built agent (agent/dist, its package.json and the runtime packages from node_modules, among them
# the unix-dgram addon compiled for this machine's node) in /opt/outpost/agent, droplet.service in
# /lib/systemd/system, and /etc/default/droplet, a conffile dpkg never overwrites once edited. The postinst
# creates the workload user and the device root (never touching what is in it), then enables the service and
# (re)starts it when systemd runs. gzip-compressed: quick to build and unpacked by every dpkg. Build the checkout
# first: `npm run build`.
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: package-deb.sh [options]    (npm run package:deb -- [options])

  --out <dir>          where the .deb is written (default: the checkout's var/deb)
  --version <version>  the package version (default: agent/package.json's version)
  -h, --help           this help

Prints the path of the package it built.
USAGE
}

die() {
  echo "package-deb: $*" >&2
  exit 1
}

usage_error() {
  echo "package-deb: $*" >&2
  echo "Try 'package-deb.sh --help'." >&2
  exit 2
}

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source_dir="$(dirname "$script_dir")"
out_dir="$source_dir/var/deb"
version=''

while [[ $# -gt 0 ]]; do
  case "$1" in
    -h | --help)
      usage
      exit 0
      ;;
    --out | --version)
      [[ $# -ge 2 && -n "$2" ]] || usage_error "$1 needs a value"
      if [[ "$1" == --out ]]; then out_dir="$2"; else version="$2"; fi
      shift
      ;;
    --out=* | --version=*)
      value="${1#*=}"
      [[ -n "$value" ]] || usage_error "${1%%=*} needs a value"
      if [[ "$1" == --out=* ]]; then out_dir="$value"; else version="$value"; fi
      ;;
    *) usage_error "unknown option $1" ;;
  esac
  shift
done

command -v dpkg-deb >/dev/null || die "dpkg-deb is needed (apt-get install dpkg)"
command -v node >/dev/null || die "node is needed"
for built in agent/package.json agent/dist/main.js agent/systemd/droplet.service; do
  [[ -f "$source_dir/$built" ]] || die "$source_dir/$built is missing: run 'npm ci && npm run build' first"
done
[[ -n "$version" ]] || version="$(node -p "require('$source_dir/agent/package.json').version")"
# Debian policy's upstream version: starts with a digit; letters, digits and . + ~ only
[[ "$version" =~ ^[0-9][A-Za-z0-9.+~]*$ ]] || usage_error "'$version' is not a Debian package version"
arch="$(dpkg --print-architecture)"
# the unix-dgram addon is built for this node's ABI: the package needs a node of the same major version
node_major="$(node -p 'process.versions.node.split(".")[0]')"

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
root="$stage/root"
agent_dir="$root/opt/outpost/agent"

mkdir -p "$agent_dir/node_modules" "$root/lib/systemd/system" "$root/etc/default" "$root/DEBIAN"
cp "$source_dir/agent/package.json" "$agent_dir/package.json"
cp -r "$source_dir/agent/dist" "$agent_dir/dist"
node "$script_dir/lib/agent-runtime-packages.mjs" "$source_dir" copy "$agent_dir/node_modules" >/dev/null
[[ -f "$agent_dir/node_modules/unix-dgram/build/Release/unix_dgram.node" ]] ||
  die "unix-dgram has no built addon in $source_dir/node_modules: run npm ci (it needs python3, make and g++)"
[[ -f "$agent_dir/node_modules/node-pty/build/Release/pty.node" ]] ||
  die "node-pty has no built addon in $source_dir/node_modules: run npm ci (it needs python3, make and g++)"
# the installed agent reads its version from package.json
node -e 'const p = process.argv[1]; const m = JSON.parse(require("fs").readFileSync(p, "utf8")); m.version = process.argv[2]; require("fs").writeFileSync(p, JSON.stringify(m, null, 2) + "\n");' \
  "$agent_dir/package.json" "$version"
install -m 0644 "$source_dir/agent/systemd/droplet.service" "$root/lib/systemd/system/droplet.service"

# holds the provisioning token once filled in: root only
cat >"$root/etc/default/droplet" <<'SETTINGS'
# Settings of the droplet service (see droplet --help). dpkg keeps this file as you edit it across upgrades.
# To register a new device, set DROPLET_SERVER, DROPLET_PROVISIONING_TOKEN, DROPLET_PROJECT, DROPLET_REGION and
# DROPLET_DEVICE_ID, then: systemctl restart droplet
DROPLET_DEVICE_ROOT=/outpost
SETTINGS
chmod 0600 "$root/etc/default/droplet"
echo /etc/default/droplet >"$root/DEBIAN/conffiles"

installed_kib="$(du -sk --exclude=DEBIAN "$root" | cut -f1)"
cat >"$root/DEBIAN/control" <<CONTROL
Package: droplet
Version: $version
Architecture: $arch
Maintainer: Outpost <outpost@localhost>
Depends: nodejs (>= $node_major), nodejs (<< $((node_major + 1))), passwd
Section: admin
Priority: optional
Installed-Size: $installed_kib
Description: Outpost droplet device agent
 Keeps the device connected to its Outpost control plane and converged on its
 record: OS versions on A/B slots, workloads, health checks, configuration.
 Runs as the systemd service droplet (Type=notify, with a watchdog).
CONTROL

cat >"$root/DEBIAN/postinst" <<'POSTINST'
#!/bin/sh
# Creates the workload user and the device root, then enables droplet.service and (re)starts it.
# Never writes configuration: /etc/default/droplet is a conffile, and what is in the device root stays as it is.
# Honours DPKG_ROOT (dpkg --root with --force-script-chrootless).
set -e
[ "$1" = configure ] || exit 0
root="${DPKG_ROOT:-}"

device_root=/outpost
workload_user=outpost-workload
if [ -r "$root/etc/default/droplet" ]; then
  configured_root="$(sed -n 's/^DROPLET_DEVICE_ROOT=//p' "$root/etc/default/droplet" | tail -n 1)"
  configured_user="$(sed -n 's/^DROPLET_WORKLOAD_USER=//p' "$root/etc/default/droplet" | tail -n 1)"
  [ -z "$configured_root" ] || device_root="$configured_root"
  [ -z "$configured_user" ] || workload_user="$configured_user"
fi
case "$device_root" in
  /*) ;;
  *) echo "droplet: DROPLET_DEVICE_ROOT=$device_root is not an absolute path" >&2; exit 1 ;;
esac
for dir in "$device_root" "$device_root/config" "$device_root/data"; do
  [ -d "$root$dir" ] || install -d -m 0755 "$root$dir"
done

if ! grep -q "^$workload_user:" "$root/etc/passwd" 2>/dev/null; then
  if [ -n "$root" ]; then
    useradd --root "$root" --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin \
      --comment 'Outpost workloads' "$workload_user"
  else
    useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin \
      --comment 'Outpost workloads' "$workload_user"
  fi
fi

if [ -z "$root" ] && [ -d /run/systemd/system ]; then
  systemctl daemon-reload
  systemctl enable droplet.service
  if [ -n "$2" ]; then
    # an upgrade: a running agent keeps the old code until restarted
    systemctl try-restart droplet.service
  else
    systemctl start droplet.service || echo "droplet: not started: provision it in /etc/default/droplet" >&2
  fi
elif [ -n "$root" ]; then
  mkdir -p "$root/etc/systemd/system/multi-user.target.wants"
  ln -sf /lib/systemd/system/droplet.service "$root/etc/systemd/system/multi-user.target.wants/droplet.service"
fi
exit 0
POSTINST

cat >"$root/DEBIAN/prerm" <<'PRERM'
#!/bin/sh
# Stops the agent before its files are removed (not on upgrade: the postinst restarts it).
set -e
if [ "$1" = remove ] && [ -z "${DPKG_ROOT:-}" ] && [ -d /run/systemd/system ]; then
  systemctl disable --now droplet.service || true
fi
exit 0
PRERM

cat >"$root/DEBIAN/postrm" <<'POSTRM'
#!/bin/sh
# The device root (the device's identity and data) is never removed; purge removes only the enablement link.
set -e
if [ "$1" = purge ]; then
  rm -f "${DPKG_ROOT:-}/etc/systemd/system/multi-user.target.wants/droplet.service"
fi
if [ -z "${DPKG_ROOT:-}" ] && [ -d /run/systemd/system ]; then
  systemctl daemon-reload || true
fi
exit 0
POSTRM
chmod 0755 "$root/DEBIAN/postinst" "$root/DEBIAN/prerm" "$root/DEBIAN/postrm"

mkdir -p "$out_dir"
deb="$out_dir/droplet_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zgzip --build "$root" "$deb" >/dev/null
echo "$deb"
