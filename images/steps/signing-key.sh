#!/bin/bash
# Ensures the OS-signing key pair exists and prints the private key's path (the .pub is beside it).
# Default: generated once into .cache/keys/. OUTPOST_SIGNING_KEY=/path/to/NAME.key uses your own
# key pair (NAME.pub beside it).
set -euo pipefail
source "$(dirname "$0")/../lib/common.sh"

KEY=${OUTPOST_SIGNING_KEY:-$CACHE_DIR/keys/os-signing.key}
if [ ! -f "$KEY" ]; then
  [ -z "${OUTPOST_SIGNING_KEY:-}" ] || die "OUTPOST_SIGNING_KEY=$KEY does not exist"
  log "signing key: generating an Ed25519 key pair in $(dirname "$KEY")"
  (cd "$REPO_DIR" && tsx images/sign.ts keygen --out "$(dirname "$KEY")" --name os-signing) >/dev/null
fi
[ -f "${KEY%.key}.pub" ] || die "no public key ${KEY%.key}.pub beside $KEY"
printf '%s\n' "$KEY"
