#!/bin/bash
# What `npm run test:e2e` needs before vitest runs the QEMU suite: the Debian packages (installed when
# missing; idempotent) and the images, the encrypted set too (images/build-all.sh --encrypted, cached by content:
# seconds when nothing changed).
# Both need root; without root, whatever is already there is used, or the script says what to run.
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ "$(id -u)" -eq 0 ]; then
  bash images/install-deps.sh
  bash images/build-all.sh --encrypted
  exit 0
fi

echo "test:e2e: not root: the package install and the image build are skipped (both need root)" >&2
if ! bash images/install-deps.sh; then
  echo "test:e2e: install the missing packages first: sudo bash images/install-deps.sh" >&2
  exit 1
fi
if [ ! -f images/out/images.json ] || [ ! -f images/out/encrypted/images.json ]; then
  echo "test:e2e: no images yet: build them first: sudo bash images/build-all.sh --encrypted" >&2
  exit 1
fi
echo "test:e2e: using the images in images/out as they are (rebuild them as root after changing the agent)" >&2
