#!/usr/bin/env bash
# The container tools the container test (test/deploy/container.test.ts) uses, on a Debian machine
# as root: Debian's podman, runc, debootstrap, podman-compose, docker-compose (Docker's Compose,
# whose `config` validates compose.yaml; it needs no engine) and CNI's dnsname plugin, and podman told what this sandbox
# allows — the runc runtime (crun is refused here) and no default rlimits (setting them is
# refused too). Idempotent: it installs only what is missing and writes the two settings only
# when they are not there yet; it changes nothing else on the machine. Run by the test when
# `podman` is missing; by hand: `bash scripts/container-setup.sh`.
set -euo pipefail

CONF=/etc/containers/containers.conf

if [ "$(id -u)" != 0 ]; then
  echo "container-setup: run as root (apt-get and $CONF)" >&2
  exit 1
fi

missing=()
for tool in podman:podman runc:runc debootstrap:debootstrap podman-compose:podman-compose docker-compose:docker-compose; do
  command -v "${tool%%:*}" >/dev/null 2>&1 || missing+=("${tool#*:}")
done
# The containers of a compose project find each other by service name: with CNI (podman 4.3's
# backend here) that is the dnsname plugin, which --no-install-recommends leaves out.
[ -x /usr/lib/cni/dnsname ] || missing+=(golang-github-containernetworking-plugin-dnsname)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "container-setup: installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# `key = value` under `[table]` of $CONF, unless the table already sets that key.
set_in_table() {
  local table=$1 key=$2 value=$3
  mkdir -p "$(dirname "$CONF")"
  touch "$CONF"
  if awk -v t="[$table]" -v k="$key" '
      /^[[:space:]]*\[/ { gsub(/[[:space:]]/, ""); here = ($0 == t); next }
      here && $1 == k { found = 1 }
      END { exit found ? 0 : 1 }' "$CONF"; then
    return 0
  fi
  if grep -q "^[[:space:]]*\[$table\]" "$CONF"; then
    sed -i "0,/^[[:space:]]*\[$table\]/s//[$table]\n$key = $value/" "$CONF"
  else
    printf '\n[%s]\n%s = %s\n' "$table" "$key" "$value" >>"$CONF"
  fi
  echo "container-setup: $CONF [$table] $key = $value"
}

set_in_table containers default_ulimits '[]'
set_in_table engine runtime '"runc"'
