#!/bin/bash
# Builds droplet (whatever agent/dist holds after `npm run build`) into one ESM file with esbuild.
# Prints the bundle's path: .cache/agent/droplet-<content hash>.mjs, so the hash of what is
# installed on the image is part of every downstream cache key.
# Fallback (esbuild fails, or OUTPOST_AGENT_BUNDLE=copy): a folder with droplet.mjs importing
# agent/dist from a copy of agent/dist, shared/dist and the production node_modules.
set -euo pipefail
source "$(dirname "$0")/../lib/common.sh"

mkdir -p "$CACHE_DIR/agent"
if ! (cd "$REPO_DIR" && npm run --silent build >"$CACHE_DIR/agent/build.log" 2>&1); then
  log "agent: 'npm run build' reported errors (see $CACHE_DIR/agent/build.log); bundling what was emitted"
fi
ENTRY="$REPO_DIR/agent/dist/main.js"
[ -f "$ENTRY" ] || die "agent: $ENTRY does not exist after npm run build"

WORK=$(fresh_workdir agent)
trap 'rm -rf "$WORK"' EXIT
BANNER="import { createRequire as __outpostCreateRequire } from 'node:module'; const require = __outpostCreateRequire(import.meta.url);"

bundle_with_esbuild() {
  (cd "$REPO_DIR" && node_modules/.bin/esbuild "$ENTRY" --bundle --platform=node --target=node20 --format=esm \
    --banner:js="$BANNER" --log-level=warning --outfile="$WORK/droplet.mjs") >&2
}

if [ "${OUTPOST_AGENT_BUNDLE:-esbuild}" != copy ] && bundle_with_esbuild; then
  OUT="$CACHE_DIR/agent/droplet-$(sha256sum <"$WORK/droplet.mjs" | cut -c1-16).mjs"
  if [ -f "$OUT" ]; then touch "$OUT"; else mv "$WORK/droplet.mjs" "$OUT"; fi
  log "agent: bundled $(du -k "$OUT" | cut -f1) KiB ($(basename "$OUT"))"
else
  log "agent: esbuild bundle not used; copying agent/dist, shared/dist and production node_modules"
  "$IMAGES_DIR/steps/agent-tree.sh" "$WORK/tree"
  KEY=$(cache_key "$WORK/tree")
  OUT="$CACHE_DIR/agent/droplet-$KEY"
  if [ -d "$OUT" ]; then touch "$OUT"; else mv "$WORK/tree" "$OUT"; fi
  log "agent: tree of $(du -sm "$OUT" | cut -f1) MB ($(basename "$OUT"))"
fi
printf '%s\n' "$OUT"
