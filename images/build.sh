#!/bin/bash
# build.sh --version V [--variant normal|no-commit|kernel-panic] [--disk]
# Builds one signed OS version bundle (out/bundles/<V>[-<variant>]/); with --disk also the disk
# image with that version in slot A (out/disk-<hash>.img, linked as out/disk.img).
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
lock_cache

VERSION='' VARIANT=normal DISK=0
while [ $# -gt 0 ]; do
  case $1 in
    --version) VERSION=$2; shift 2 ;;
    --variant) VARIANT=$2; shift 2 ;;
    --disk) DISK=1; shift ;;
    -h | --help) sed -n '2,4p' "$0"; exit 0 ;;
    *) die "build.sh: unknown argument $1 (see --help)" ;;
  esac
done
[ -n "$VERSION" ] || die "build.sh: --version is required"

# resolve the shared inputs once, so the steps below do not rebuild the agent each
BASE_TARBALL=$("$IMAGES_DIR/steps/base-rootfs.sh")
DROPLET_DEB=$("$IMAGES_DIR/steps/agent-deb.sh")
NODEJS_DEB=$("$IMAGES_DIR/steps/nodejs-deb.sh")
SIGNING_KEY=$("$IMAGES_DIR/steps/signing-key.sh")
export BASE_TARBALL DROPLET_DEB NODEJS_DEB SIGNING_KEY

"$IMAGES_DIR/steps/os-bundle.sh" --version "$VERSION" --variant "$VARIANT"
if [ "$DISK" = 1 ]; then
  "$IMAGES_DIR/steps/disk-image.sh" --slot-a "$("$IMAGES_DIR/steps/slot-image.sh" --version "$VERSION" --variant "$VARIANT")"
fi
