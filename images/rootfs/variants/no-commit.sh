#!/bin/bash
# no-commit TREE: droplet boots and connects but never commits a trial boot, so GRUB falls back
# to the previous slot on the next boot (the agent honours OUTPOST_TEST_NEVER_COMMIT=1).
set -euo pipefail
mkdir -p "$1/etc/systemd/system/droplet.service.d"
printf '[Service]\nEnvironment=OUTPOST_TEST_NEVER_COMMIT=1\n' >"$1/etc/systemd/system/droplet.service.d/never-commit.conf"
