#!/bin/bash
# kernel-panic TREE: init exits at once, so the kernel panics ("Attempted to kill init!") and,
# with panic=5 on its command line, reboots; under QEMU -no-reboot the VM exits.
set -euo pipefail
ln -sf /bin/false "$1/usr/sbin/init"
