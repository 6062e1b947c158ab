#!/usr/bin/env bash
# Installs the droplet agent on a Debian machine as the systemd service `droplet`.
#
# It copies a built agent (agent/dist plus the runtime packages it needs, taken from the checkout's
# node_modules) to /opt/outpost/agent, installs agent/systemd/droplet.service, writes the agent's
# settings to /etc/default/droplet and enables and starts the service. Build first: `npm run build`.
set -euo pipefail

readonly MIN_NODE_MAJOR=20

usage() {
  cat <<'USAGE'
Usage: install-agent.sh [options]

Agent settings (written to /etc/default/droplet; needed once, to register a new device):
  --device-root <dir>           persistent root of the device (default /outpost)
  --server <url>                the control plane, e.g. https://outpost.example.com
  --ca-file <pem>               trust only these CA certificates for the server's TLS certificate (a private CA;
                                an absolute path on the device, written as DROPLET_CA_FILE)
  --provisioning-token <token>  project provisioning token that registers the device
  --project <project>           project to register the device in
  --region <region>             region to register the device in
  --device-id <id>              id to register the device as
  --device-type <type>          device type id
  --boot-backend <backend>      grubenv | uboot | file | none (default none: OS not managed)
  --factory-version <version>   the OS version the device shipped with
  --log-level <level>           fatal | error | warn | info | debug | trace
  --workload-user <name>        the unprivileged user COMMAND health checks and pod services run as
                                (default outpost-workload; created as a system user if missing)

Installation:
  --deb <file>                  install this package (npm run package:deb) with apt-get (dpkg -i without
                                apt-get) instead of copying a checkout; the settings above are written to
                                /etc/default/droplet first, and the package enables and starts the service
  --source <dir>                the built Outpost checkout (default: this script's checkout)
  --prefix <dir>                where the agent goes (default /opt/outpost/agent)
  --node <path>                 the node binary the service runs (default /usr/bin/node)
  --insecure                    run the agent with --insecure: plain http:// to a server that is not on loopback
                                (the credential crosses the network in the clear); added to the unit's ExecStart,
                                with --deb in the drop-in /etc/systemd/system/droplet.service.d/insecure.conf.
                                Like --node, give it at every install: an install without it removes it
  --dest-root <dir>             install into a root filesystem under construction (image builds);
                                implies --no-start
  --no-start                    enable the service but do not start it now
  --dry-run                     print what would be done and change nothing
  -h, --help                    this help
USAGE
}

die() {
  echo "install-agent: $*" >&2
  exit 1
}

usage_error() {
  echo "install-agent: $*" >&2
  echo "Try 'install-agent.sh --help'." >&2
  exit 2
}

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source_dir="$(dirname "$script_dir")"
prefix=/opt/outpost/agent
node_bin=/usr/bin/node
dest_root=''
deb=''
dry_run=0
start_now=1
insecure=0
declare -A settings=()
# the order settings are written in
readonly setting_names=(DEVICE_ROOT SERVER CA_FILE PROVISIONING_TOKEN PROJECT REGION DEVICE_ID DEVICE_TYPE BOOT_BACKEND FACTORY_VERSION LOG_LEVEL WORKLOAD_USER)

while [[ $# -gt 0 ]]; do
  option="$1"
  value=''
  has_inline_value=0
  if [[ "$option" == --*=* ]]; then
    value="${option#*=}"
    option="${option%%=*}"
    has_inline_value=1
  fi
  case "$option" in
    -h | --help)
      usage
      exit 0
      ;;
    --dry-run) dry_run=1 ;;
    --no-start) start_now=0 ;;
    --insecure) insecure=1 ;;
    --device-root | --server | --ca-file | --provisioning-token | --project | --region | --device-id | --device-type | \
      --boot-backend | --factory-version | --log-level | --workload-user | --source | --prefix | --node | --dest-root | \
      --deb)
      if [[ $has_inline_value -eq 0 ]]; then
        [[ $# -ge 2 ]] || usage_error "$option needs a value"
        value="$2"
        shift
      fi
      [[ -n "$value" ]] || usage_error "$option needs a value"
      case "$option" in
        --source) source_dir="$value" ;;
        --prefix) prefix="$value" ;;
        --node) node_bin="$value" ;;
        --dest-root) dest_root="$value" ;;
        --deb) deb="$value" ;;
        *)
          name="${option#--}"
          name="${name//-/_}"
          settings["${name^^}"]="$value"
          ;;
      esac
      ;;
    *) usage_error "unknown option $1" ;;
  esac
  shift
done

# --- check the settings ---------------------------------------------------------------------------
for name in "${!settings[@]}"; do
  # written unquoted to a systemd environment file
  [[ "${settings[$name]}" =~ ^[^[:space:]\"\'\\\$\`]+$ ]] ||
    usage_error "the value of --$(tr 'A-Z_' 'a-z-' <<<"$name") must not contain spaces, quotes, backslashes or \$"
done
if [[ -n "${settings[BOOT_BACKEND]:-}" && ! "${settings[BOOT_BACKEND]}" =~ ^(grubenv|uboot|file|none)$ ]]; then
  usage_error "--boot-backend must be grubenv, uboot, file or none, not '${settings[BOOT_BACKEND]}'"
fi
if [[ -n "${settings[LOG_LEVEL]:-}" && ! "${settings[LOG_LEVEL]}" =~ ^(fatal|error|warn|info|debug|trace|silent)$ ]]; then
  usage_error "--log-level must be fatal, error, warn, info, debug, trace or silent"
fi
if [[ -n "${settings[DEVICE_ID]:-}" && ! "${settings[DEVICE_ID]}" =~ ^[a-z][a-z0-9-]{0,28}[a-z0-9]$ ]]; then
  usage_error "--device-id '${settings[DEVICE_ID]}' is not a device id ([a-z][a-z0-9-]{0,28}[a-z0-9])"
fi
if [[ -n "${settings[SERVER]:-}" && ! "${settings[SERVER]}" =~ ^https?:// ]]; then
  usage_error "--server must be an http(s) URL"
fi
if [[ -n "${settings[CA_FILE]:-}" && "${settings[CA_FILE]}" != /* ]]; then
  usage_error "--ca-file must be an absolute path (the agent reads it on the device)"
fi
if [[ $insecure -eq 1 && "${settings[SERVER]:-}" == https://* ]]; then
  usage_error "--insecure is for a plain http:// server; --server is https://"
fi
if [[ -n "${settings[PROVISIONING_TOKEN]:-}" ]]; then
  missing=()
  for required in SERVER PROJECT REGION DEVICE_ID; do
    [[ -n "${settings[$required]:-}" ]] || missing+=("--$(tr 'A-Z_' 'a-z-' <<<"$required")")
  done
  [[ ${#missing[@]} -eq 0 ]] || usage_error "--provisioning-token also needs ${missing[*]}"
fi
if [[ -n "${settings[WORKLOAD_USER]:-}" && ! "${settings[WORKLOAD_USER]}" =~ ^[a-z_][a-z0-9_-]{0,31}$ ]]; then
  usage_error "--workload-user '${settings[WORKLOAD_USER]}' is not a user name ([a-z_][a-z0-9_-]{0,31})"
fi
workload_user="${settings[WORKLOAD_USER]:-outpost-workload}"
[[ -n "$dest_root" ]] && start_now=0
device_root="${settings[DEVICE_ROOT]:-/outpost}"
[[ "$device_root" == /* ]] || usage_error "--device-root must be an absolute path"
[[ "$prefix" == /* ]] || usage_error "--prefix must be an absolute path"

target() { printf '%s%s' "$dest_root" "$1"; }
readonly unit_file=/etc/systemd/system/droplet.service
readonly env_file=/etc/default/droplet

readonly insecure_dropin=/etc/systemd/system/droplet.service.d/insecure.conf

# the package's unit started with --insecure: its ExecStart, replaced (an empty ExecStart= clears the list)
insecure_dropin_content() {
  local exec_start
  exec_start="$(dpkg-deb --fsys-tarfile "$deb" | tar -xO ./lib/systemd/system/droplet.service 2>/dev/null |
    grep -m 1 '^ExecStart=')" || die "$deb has no lib/systemd/system/droplet.service with an ExecStart"
  echo "# written by install-agent.sh --insecure: plain http:// to a server that is not on loopback"
  echo "[Service]"
  echo "ExecStart="
  echo "$exec_start --insecure"
}

environment_file_content() {
  echo "# Settings of the droplet service (see droplet --help); written by install-agent.sh"
  for name in "${setting_names[@]}"; do
    if [[ -n "${settings[$name]:-}" ]]; then
      printf 'DROPLET_%s=%s\n' "$name" "${settings[$name]}"
    fi
  done
}

# --- from the Debian package ---------------------------------------------------------------------
install_from_deb() {
  [[ -z "$dest_root" && $start_now -eq 1 && "$prefix" == /opt/outpost/agent && "$node_bin" == /usr/bin/node ]] ||
    usage_error "--deb installs the package as it is: no --dest-root, --no-start, --prefix or --node"
  [[ -f "$deb" ]] || die "$deb not found"
  local package
  package="$(dpkg-deb --field "$deb" Package 2>/dev/null)" || die "$deb is not a Debian package"
  [[ "$package" == droplet ]] || die "$deb is the package $package, not droplet"
  local deb_path
  deb_path="$(realpath "$deb")"
  local installer=(dpkg --force-confold -i "$deb_path")
  # apt-get also installs the dependencies (nodejs); the settings written first are kept (--force-confold)
  command -v apt-get >/dev/null && installer=(apt-get install -y -o Dpkg::Options::=--force-confold "$deb_path")
  if [[ $dry_run -eq 1 ]]; then
    echo "install-agent: dry run; nothing is changed"
    echo "package:     $deb_path ($(dpkg-deb --field "$deb" Version))"
    [[ ${#settings[@]} -eq 0 ]] || echo "settings:    $env_file"
    echo "install:     ${installer[*]}"
    if [[ ${#settings[@]} -gt 0 ]]; then
      echo "--- $env_file"
      environment_file_content | sed -E 's/^(DROPLET_PROVISIONING_TOKEN=).*/\1<hidden>/'
    fi
    if [[ $insecure -eq 1 ]]; then
      echo "--- $insecure_dropin"
      insecure_dropin_content
    elif [[ -f "$insecure_dropin" ]]; then
      echo "--- $insecure_dropin: removed (no --insecure)"
    fi
    exit 0
  fi
  [[ "$(id -u)" -eq 0 ]] || die "run as root (it installs a system service)"
  if [[ ${#settings[@]} -gt 0 ]]; then
    install -d -m 0755 /etc/default
    (umask 077 && environment_file_content >"$env_file.tmp")
    mv "$env_file.tmp" "$env_file"
    echo "install-agent: settings written to $env_file"
  fi
  # before the package's postinst reloads systemd and (re)starts the agent
  if [[ $insecure -eq 1 ]]; then
    local dropin_content
    dropin_content="$(insecure_dropin_content)"
    install -d -m 0755 "$(dirname "$insecure_dropin")"
    printf '%s\n' "$dropin_content" >"$insecure_dropin"
    echo "install-agent: the agent runs with --insecure ($insecure_dropin)"
  elif [[ -f "$insecure_dropin" ]]; then
    rm -f "$insecure_dropin"
    echo "install-agent: removed $insecure_dropin (no --insecure)"
  fi
  DEBIAN_FRONTEND=noninteractive "${installer[@]}"
  # an upgrade with new settings: the agent reads them at start
  if [[ ${#settings[@]} -gt 0 ]] && command -v systemctl >/dev/null && systemctl is-active --quiet droplet.service; then
    systemctl restart droplet.service
  fi
  echo "install-agent: droplet installed from $deb_path (journalctl -u droplet -f)"
  exit 0
}
if [[ -n "${settings[CA_FILE]:-}" && ! -f "$(target "${settings[CA_FILE]}")" ]]; then
  echo "install-agent: warning: $(target "${settings[CA_FILE]}") does not exist: the agent will not start without it" >&2
fi
[[ -z "$deb" ]] || install_from_deb


# --- check the machine and the source -------------------------------------------------------------
node_major() { "$1" -e 'process.stdout.write(process.versions.node.split(".")[0])' 2>/dev/null; }

command -v node >/dev/null || die "node ${MIN_NODE_MAJOR} or newer is needed (apt-get install nodejs)"
installer_node_major="$(node_major node)"
[[ "$installer_node_major" -ge $MIN_NODE_MAJOR ]] || die "node ${MIN_NODE_MAJOR} or newer is needed; found $(node --version)"
if [[ -x "$(target "$node_bin")" ]]; then
  service_node_major="$(node_major "$(target "$node_bin")" || true)"
  if [[ -n "$service_node_major" && "$service_node_major" -lt $MIN_NODE_MAJOR ]]; then
    die "$node_bin is node $service_node_major; the agent needs ${MIN_NODE_MAJOR} or newer"
  fi
elif [[ $dry_run -eq 0 ]]; then
  die "$(target "$node_bin") not found: install node ${MIN_NODE_MAJOR}+ there or pass --node <path>"
fi

for built in agent/package.json agent/dist/main.js agent/systemd/droplet.service shared/package.json shared/dist/index.js; do
  [[ -f "$source_dir/$built" ]] && continue
  message="$source_dir/$built is missing: run 'npm ci && npm run build' in $source_dir first"
  [[ $dry_run -eq 1 ]] || die "$message"
  echo "install-agent: warning: $message" >&2
done

if [[ $dry_run -eq 0 && -z "$dest_root" && "$(id -u)" -ne 0 ]]; then
  die "run as root (it installs a system service)"
fi
if [[ $start_now -eq 1 && $dry_run -eq 0 ]]; then
  command -v systemctl >/dev/null || die "systemd is needed (systemctl not found)"
fi

# --- the runtime packages the agent needs ---------------------------------------------------------
# Usage: runtime_packages list|copy <target node_modules> (see lib/agent-runtime-packages.mjs)
runtime_packages() {
  node "$script_dir/lib/agent-runtime-packages.mjs" "$source_dir" "$1" ${2:+"$2"} | sed -e 's/^copied /install-agent: copied /'
}

unit_content() {
  local insecure_flag=''
  [[ $insecure -eq 0 ]] || insecure_flag=' --insecure'
  sed -e "s#^ExecStart=/usr/bin/node /opt/outpost/agent/#ExecStart=${node_bin} ${prefix}/#" \
    -e "s#^\(ExecStart=.*\)\$#\1${insecure_flag}#" "$source_dir/agent/systemd/droplet.service"
}

# --- dry run: the plan ----------------------------------------------------------------------------
if [[ $dry_run -eq 1 ]]; then
  packages="$(runtime_packages list)"
  echo "install-agent: dry run; nothing is changed"
  echo "source:      $source_dir"
  echo "agent:       $(target "$prefix") (dist/, package.json, node_modules/ with $(wc -l <<<"$packages") packages)"
  echo "unit:        $(target "$unit_file")"
  echo "settings:    $(target "$env_file")"
  echo "device root: $(target "$device_root")"
  echo "workload:    user $workload_user (a system user without login, created if missing)"
  if [[ -n "$dest_root" ]]; then
    echo "service:     enable droplet in $dest_root (not started)"
  elif [[ $start_now -eq 1 ]]; then
    echo "service:     systemctl daemon-reload && systemctl enable --now droplet"
  else
    echo "service:     systemctl daemon-reload && systemctl enable droplet (not started)"
  fi
  echo "--- packages"
  echo "$packages"
  echo "--- $env_file"
  environment_file_content | sed -E 's/^(DROPLET_PROVISIONING_TOKEN=).*/\1<hidden>/'
  echo "--- $unit_file"
  unit_content
  exit 0
fi

# --- install --------------------------------------------------------------------------------------
install_root="$(target "$prefix")"
staging="${install_root}.new.$$"
trap 'rm -rf "$staging"' EXIT
rm -rf "$staging"
mkdir -p "$staging/node_modules"
cp "$source_dir/agent/package.json" "$staging/package.json"
cp -r "$source_dir/agent/dist" "$staging/dist"
runtime_packages copy "$staging/node_modules"
# the agent reads its version from package.json; check it loads before replacing a working install
[[ -n "$dest_root" ]] || node "$staging/dist/main.js" --version >/dev/null || die "the staged agent does not start"
# droplet.service is Type=notify: an agent whose notification addon does not load would never be ready
[[ -n "$dest_root" ]] || "$node_bin" -e 'require(process.argv[1])' "$staging/node_modules/unix-dgram" ||
  die "the unix-dgram addon does not load with $node_bin: run 'npm rebuild unix-dgram' in $source_dir with that node"
# the remote terminal's pseudo-terminals (node-pty, loaded on the first one): without it only ssh fails
[[ -n "$dest_root" ]] || "$node_bin" -e 'require(process.argv[1])' "$staging/node_modules/node-pty" ||
  echo "warning: the node-pty addon does not load with $node_bin: outpost devices ssh with a terminal will fail on this device (run 'npm rebuild node-pty' in $source_dir with that node)" >&2

if [[ -d "$install_root" ]]; then
  rm -rf "${install_root}.old"
  mv "$install_root" "${install_root}.old"
fi
mv "$staging" "$install_root"
rm -rf "${install_root}.old"
trap - EXIT
echo "install-agent: agent installed in $install_root"

install -d -m 0755 "$(target /etc/systemd/system)" "$(target /etc/default)"
unit_content >"$(target "$unit_file").tmp"
chmod 0644 "$(target "$unit_file").tmp"
mv "$(target "$unit_file").tmp" "$(target "$unit_file")"
# an earlier --deb --insecure install's drop-in would replace this unit's ExecStart
if [[ -f "$(target "$insecure_dropin")" ]]; then
  rm -f "$(target "$insecure_dropin")"
  echo "install-agent: removed $(target "$insecure_dropin") (this install writes the whole unit)"
fi

if [[ ${#settings[@]} -gt 0 || ! -f "$(target "$env_file")" ]]; then
  # holds the provisioning token: root only
  (umask 077 && environment_file_content >"$(target "$env_file").tmp")
  mv "$(target "$env_file").tmp" "$(target "$env_file")"
  echo "install-agent: settings written to $(target "$env_file")"
fi
install -d -m 0755 "$(target "$device_root")" "$(target "$device_root")/config" "$(target "$device_root")/data"

# COMMAND health checks and pod services run as this user, never as root unless they ask (and may)
if grep -q "^${workload_user}:" "$(target /etc/passwd)" 2>/dev/null || { [[ -z "$dest_root" ]] && getent passwd -- "$workload_user" >/dev/null; }; then
  echo "install-agent: workload user $workload_user exists"
else
  command -v useradd >/dev/null || die "useradd is needed to create the workload user $workload_user"
  useradd_options=(--system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin --comment 'Outpost workloads')
  [[ -z "$dest_root" ]] || useradd_options+=(--root "$dest_root")
  useradd "${useradd_options[@]}" "$workload_user"
  echo "install-agent: workload user $workload_user created"
fi
if [[ ! -f "$(target "$device_root")/config/credential" && -z "${settings[PROVISIONING_TOKEN]:-}" ]]; then
  echo "install-agent: warning: the device is not provisioned and no --provisioning-token was given;" >&2
  echo "install-agent: the service will refuse to start until $env_file provides one" >&2
fi

if [[ -n "$dest_root" ]]; then
  systemctl --root="$dest_root" enable droplet.service
  echo "install-agent: droplet enabled in $dest_root"
else
  was_active=0
  systemctl is-active --quiet droplet.service && was_active=1
  systemctl daemon-reload
  if [[ $start_now -eq 1 ]]; then
    systemctl enable --now droplet.service
    # a running agent keeps the old code until restarted
    [[ $was_active -eq 0 ]] || systemctl restart droplet.service
    echo "install-agent: droplet is running (journalctl -u droplet -f)"
  else
    systemctl enable droplet.service
    echo "install-agent: droplet enabled; start it with: systemctl start droplet"
  fi
fi
