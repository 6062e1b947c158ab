/**
 * Turns one README example block into a bash script that runs its commands in order, as a user pasting them
 * into a shell would, and stops at the first that fails. Pure: commands in, script text out.
 */
import { commandKind, withoutComments } from './readme-examples.js';
import type { ShellCommand } from './readme-examples.js';

/** What stands in for the README's placeholders of a real installation. */
export interface ExampleWorld {
  /** replaces http://127.0.0.1:8080 and https://outpost.example */
  serverUrl: string;
  /** replaces opk_admin_... */
  adminKey: string;
  /** replaces /outpost (droplet's default device root) outside droplet commands: the device the examples address */
  deviceRoot: string;
  /** a fresh device root for each droplet command (each one starts a new device) */
  freshDeviceRoot(): string;
  /** where bounded commands record their process ids, for the test to stop what outlives a failure */
  boundedPidsFile: string;
  /** false where curl is not installed: curl commands are then reported as not run */
  curlInstalled: boolean;
}

/** Printed before each command; the test counts them to know every command ran. */
export const STEP_PREFIX = '▶ ';
export const NOT_RUN_PREFIX = '▷ not run: ';

const quoted = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

/** The command as the script runs it: the README's stand-ins replaced by the test's world. */
export function substituted(command: string, world: ExampleWorld): string {
  const root = /^droplet\s/.test(command) ? world.freshDeviceRoot() : world.deviceRoot;
  return command
    .replaceAll('http://127.0.0.1:8080', world.serverUrl)
    .replaceAll('https://outpost.example', world.serverUrl)
    .replaceAll('opk_admin_...', world.adminKey)
    .replace(/(^|[\s:='"])\/outpost(?=[/\s'"]|$)/g, `$1${root}`);
}

/**
 * bounded_run: the command must print within 30 s and still run a second later; then its process group gets
 * SIGINT (Ctrl-C) and must end within 10 s. One that ends by itself passes only with exit status 0.
 */
const PRELUDE = String.raw`
exec 2>&1
set -eo pipefail
shopt -s expand_aliases
# an HTTP error makes curl fail, as it makes the outpost command line fail
curl() { local status=0; command curl --fail-with-body --silent --show-error "$@" || status=$?; echo; return "$status"; }
bounded_run() {
  local log pid waited=0 status=0
  log=$(mktemp)
  # job control gives the command a process group of its own, and Ctrl-C its default meaning (a script's
  # background commands ignore SIGINT otherwise)
  set -m
  "$@" >"$log" 2>&1 &
  pid=$!
  set +m
  echo "$pid" >>"$BOUNDED_PIDS"
  while [ ! -s "$log" ] && kill -0 "$pid" 2>/dev/null && [ "$waited" -lt 300 ]; do sleep 0.1; waited=$((waited + 1)); done
  sleep 1
  if ! kill -0 "$pid" 2>/dev/null; then
    wait "$pid" || status=$?
    cat "$log"
    echo "(ended by itself with exit status $status)"
    return "$status"
  fi
  kill -INT -- "-$pid" 2>/dev/null || true
  waited=0
  while kill -0 "$pid" 2>/dev/null && [ "$waited" -lt 100 ]; do sleep 0.1; waited=$((waited + 1)); done
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL -- "-$pid" 2>/dev/null || true
    cat "$log"
    echo "(did not end within 10 s of Ctrl-C)"
    return 1
  fi
  wait "$pid" || true
  cat "$log"
  if [ ! -s "$log" ]; then echo "(printed nothing in 30 s)"; return 1; fi
  echo "(stopped with Ctrl-C)"
}
trap 'echo "✗ exit status $?: $step"' ERR
`;

/** The bash script of one block. */
export function blockScript(commands: readonly ShellCommand[], world: ExampleWorld): string {
  const lines = [`BOUNDED_PIDS=${quoted(world.boundedPidsFile)}`, PRELUDE];
  for (const command of commands) {
    const kind = commandKind(command, world.curlInstalled);
    const code = substituted(withoutComments(command), world);
    if (kind.kind === 'not-run') {
      lines.push(`echo ${quoted(`${NOT_RUN_PREFIX}${code} (${kind.reason})`)}`);
      continue;
    }
    lines.push(`step=${quoted(code)}`, `echo "${STEP_PREFIX}$step"`);
    lines.push(kind.kind === 'bounded' ? `bounded_run ${code}` : code);
  }
  return lines.join('\n') + '\n';
}
