#!/bin/bash
# Builds the base Debian rootfs tarball (minbase + systemd + udev + cloud kernel) with mmdebstrap in
# unshare mode: no mounts, no loop devices. Cached by the content of this script, the package list,
# the slimming script and the apt mirrors. Prints the tarball's path.
# Set OUTPOST_REBUILD_BASE=1 to rebuild anyway (e.g. to pick up Debian security updates).
set -euo pipefail
source "$(dirname "$0")/../lib/common.sh"
source "$IMAGES_DIR/lib/apt-mirrors.sh"

CODENAME=$(. /etc/os-release && echo "${VERSION_CODENAME:?host os-release has no VERSION_CODENAME}")
MIRROR=$(mirror_for_suite "$CODENAME")
SECURITY_MIRROR=$(mirror_for_suite "$CODENAME-security")
[ -n "$MIRROR" ] || die "no apt source for suite $CODENAME in /etc/apt/sources.list*"
SOURCES=("deb $MIRROR $CODENAME main" "deb $MIRROR $CODENAME-updates main")
[ -n "$SECURITY_MIRROR" ] && SOURCES+=("deb $SECURITY_MIRROR $CODENAME-security main")

PACKAGES_FILE="$IMAGES_DIR/rootfs/packages.txt"
PACKAGES=$(grep -v '^#' "$PACKAGES_FILE" | xargs | tr ' ' ',')
SLIM="$IMAGES_DIR/rootfs/slim.sh"

KEY=$(cache_key "$0" "$PACKAGES_FILE" "$SLIM" "=$CODENAME" "=${SOURCES[*]}")
OUT="$CACHE_DIR/base/$KEY.tar"
if [ -f "$OUT" ] && [ "${OUTPOST_REBUILD_BASE:-0}" != 1 ]; then
  log "base rootfs: cached ($KEY)"
  printf '%s\n' "$OUT"
  exit 0
fi

require_root "mmdebstrap"
log "base rootfs: building $CODENAME from $MIRROR ($KEY)"
mkdir -p "$CACHE_DIR/base"
rm -f "$CACHE_DIR"/base/*.tar.partial
DEBS="$CACHE_DIR/debs"
LOG="$CACHE_DIR/base/mmdebstrap.log"
mkdir -p "$DEBS"
start=$(now)
# Downloaded .debs are kept in $DEBS (mmdebstrap's sync-in/sync-out hooks) so a rebuild after an
# edit of the package list or slim.sh downloads only what is new.
# INITRD=No: the kernel postinst skips building an initramfs (the images boot without one)
if ! INITRD=No mmdebstrap --mode=unshare --variant=minbase --format=tar \
  --include="$PACKAGES" \
  --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
  --skip=download/empty --skip=essential/unlink \
  --setup-hook='mkdir -p "$1"/var/cache/apt/archives/' \
  --setup-hook="sync-in '$DEBS' /var/cache/apt/archives/" \
  --customize-hook="sync-out /var/cache/apt/archives '$DEBS'" \
  --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --dpkgopt='path-include=/usr/share/locale/locale.alias' \
  --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --dpkgopt='path-exclude=/usr/share/info/*' \
  --dpkgopt='path-exclude=/usr/share/lintian/*' \
  --customize-hook="\"$SLIM\" \"\$1\"" \
  "$CODENAME" "$OUT.partial" "${SOURCES[@]}" >"$LOG" 2>&1; then
  tail -n 30 "$LOG" >&2
  die "mmdebstrap failed (full log: $LOG)"
fi
mv "$OUT.partial" "$OUT"
# keep only the current base: an old one is never used again
find "$CACHE_DIR/base" -name '*.tar' ! -name "$KEY.tar" -delete
log "base rootfs: $(du -m "$OUT" | cut -f1) MB in $(seconds_since "$start")s"
printf '%s\n' "$OUT"
