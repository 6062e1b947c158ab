#!/bin/bash
# Install the Debian packages the image pipeline and the QEMU smoke boot need.
# Idempotent: does nothing (no apt-get update either) when everything is already installed.
set -euo pipefail

PACKAGES=(
  qemu-system-x86 qemu-utils ovmf
  grub-efi-amd64-bin grub-common
  mtools dosfstools fdisk e2fsprogs
  mmdebstrap
  swtpm tpm2-tools cryptsetup-bin # the software TPM of the encrypted-device tests and the TPM prototype
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
  [ "$status" = installed ] || missing+=("$pkg")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing ${missing[*]}; run this script as root" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
echo "install-deps: done"
