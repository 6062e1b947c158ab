# Shared helpers for the image scripts (sourced, never run).
# Every step prints its log on stderr and the path of what it produced as the last line on stdout.

IMAGES_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REPO_DIR=$(cd "$IMAGES_DIR/.." && pwd)
CACHE_DIR=${OUTPOST_IMAGES_CACHE:-$IMAGES_DIR/.cache}
OUT_DIR=${OUTPOST_IMAGES_OUT:-$IMAGES_DIR/out}
DEVICE_TYPE=qemu-x86_64

log() { printf '[images] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

now() { date +%s.%N; }
seconds_since() { awk -v s="$1" -v e="$(now)" 'BEGIN { printf "%.1f", e - s }'; }

# timed LABEL CMD...: run CMD, log how long it took; CMD's exit status is timed's (a caller's `x=$(timed ...)`
# fails with it: errexit is off inside a command substitution, so a bare "$@" there would hide a failed step)
timed() {
  local label=$1 start status=0
  shift
  start=$(now)
  "$@" || status=$?
  if [ "$status" -ne 0 ]; then
    log "$label: failed (exit $status) after $(seconds_since "$start")s"
    return "$status"
  fi
  log "$label: $(seconds_since "$start")s"
}

# cache_key ITEM...: a short content hash of the inputs. ITEM is a file (its content and mode),
# a directory (every file's relative path, mode and content) or "=text" (a literal value).
cache_key() {
  local item
  for item in "$@"; do
    [[ $item == =* ]] || item=$(readlink -f "$item") # the same input hashes the same however it was named
    if [[ $item == =* ]]; then
      printf 'text %s\n' "${item#=}"
    elif [ -d "$item" ]; then
      printf 'dir %s\n' "${item#"$IMAGES_DIR"/}"
      (cd "$item" && find . -type f -printf '%m %p\n' | LC_ALL=C sort && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum)
    elif [ -f "$item" ]; then
      printf 'file %s %s %s\n' "${item#"$IMAGES_DIR"/}" "$(stat -c %a "$item")" "$(sha256sum <"$item" | cut -d' ' -f1)"
    else
      die "cache_key: no such input: $item"
    fi
  done | sha256sum | cut -c1-16
}

# fresh_workdir NAME: an empty scratch folder under the cache (same filesystem, so results can be renamed into place)
fresh_workdir() {
  local dir="$CACHE_DIR/tmp/$1.$$"
  rm -rf "$dir"
  mkdir -p "$dir"
  printf '%s\n' "$dir"
}

# lock_cache: one build at a time per cache (entry points call it; the lock ends with the process)
lock_cache() {
  mkdir -p "$CACHE_DIR"
  exec 9>"$CACHE_DIR/.lock"
  flock -w 1800 9 || die "another image build holds $CACHE_DIR/.lock"
}

require_root() {
  [ "$(id -u)" -eq 0 ] || die "$1 needs root (mmdebstrap unshare mode, file ownership in the slot tree)"
}

# the repository's own tools (installed by npm ci), run without npx
tsx() { "$REPO_DIR/node_modules/.bin/tsx" "$@"; }
