#!/bin/bash
# agent-tree.sh DIR: the agent's fallback install tree (used when esbuild cannot bundle it):
#   DIR/droplet.mjs              entry point, imports app/agent/dist/main.js
#   DIR/app/{agent,shared}/      package.json + dist of the workspaces
#   DIR/app/node_modules/...     the production dependencies `npm ls --omit=dev` lists
set -euo pipefail
source "$(dirname "$0")/../lib/common.sh"
DEST=$1
mkdir -p "$DEST/app/node_modules/@outpost"

for workspace in agent shared; do
  mkdir -p "$DEST/app/$workspace"
  cp -a "$REPO_DIR/$workspace/package.json" "$REPO_DIR/$workspace/dist" "$DEST/app/$workspace/"
  ln -s "../../$workspace" "$DEST/app/node_modules/@outpost/$workspace"
done

# every installed production dependency of the agent (npm ls exits non-zero on extraneous packages)
(cd "$REPO_DIR" && npm ls --omit=dev --all --parseable --workspace=@outpost/agent 2>/dev/null || true) |
  LC_ALL=C sort | while read -r dir; do
    case "$dir" in
      "$REPO_DIR"/node_modules/*)
        rel=${dir#"$REPO_DIR"/}
        [ -L "$dir" ] && continue # workspace links, handled above
        mkdir -p "$DEST/app/$(dirname "$rel")"
        [ -e "$DEST/app/$rel" ] || cp -a "$dir" "$DEST/app/$rel"
        ;;
    esac
  done

printf "import './app/agent/dist/main.js';\n" >"$DEST/droplet.mjs"
