#!/bin/sh
# Builds the image the Containerfile starts from when no container registry is reachable: Debian 12
# (bookworm, minbase) from a Debian mirror, with the Node 22 binary and npm from the npm registry, laid
# out as the official node:22-bookworm-slim lays them out (/usr/local/bin/node, npm). docs/deploy.md.
#
#   sh scripts/container-base.sh                 # -> localhost/ivs-node:22-bookworm
#   podman build --isolation=chroot --build-arg NODE_IMAGE=localhost/ivs-node:22-bookworm -t ivs .
#
# Needs root (debootstrap), debootstrap, podman and npm. Environment:
#   DEBIAN_MIRROR  default: the first deb.debian.org-like URI in /etc/apt/sources.list*, else deb.debian.org
#   NODE_VERSION   default: the node@22 devDependency's version in package-lock.json
#   NPM_VERSION    default: 10 (the npm line Node 22 ships)
#   BASE_IMAGE     default: localhost/ivs-node:22-bookworm
#   WORK_DIR       default: a new directory under ${TMPDIR:-/tmp}
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
BASE_IMAGE=${BASE_IMAGE:-localhost/ivs-node:22-bookworm}
NPM_VERSION=${NPM_VERSION:-10}
if [ -z "${NODE_VERSION:-}" ]; then
  # The runtime the project pins (package.json engines, the node@22 devDependency).
  NODE_VERSION=$(sed -n '/"node_modules\/node": {/,/}/s/.*"version": "\([0-9.]*\)".*/\1/p' "$here/package-lock.json" | head -n1)
fi
if [ -z "${DEBIAN_MIRROR:-}" ]; then
  DEBIAN_MIRROR=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/* 2>/dev/null \
    | grep -oE 'https?://[^ ]*/debian/?( |$)' | grep -v security | head -n1 | tr -d ' ' || true)
  DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
fi
case "$(uname -m)" in
  x86_64) node_arch=x64 ;;
  aarch64) node_arch=arm64 ;;
  *) echo "container-base: no node binary package for $(uname -m)" >&2; exit 1 ;;
esac
[ "$(id -u)" = 0 ] || { echo "container-base: debootstrap needs root" >&2; exit 1; }
for tool in debootstrap podman npm tar; do
  command -v "$tool" >/dev/null || { echo "container-base: $tool is not installed (apt-get install -y debootstrap podman npm)" >&2; exit 1; }
done

work=${WORK_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/ivs-base.XXXXXX")}
root="$work/rootfs"
echo "container-base: Debian bookworm minbase from $DEBIAN_MIRROR into $root"
if [ ! -x "$root/bin/sh" ]; then
  # ca-certificates: the service calls HTTPS upstreams (registries, sanctions lists, AWS).
  debootstrap --variant=minbase --include=ca-certificates bookworm "$root" "$DEBIAN_MIRROR"
fi
# What a runtime image never needs: package lists, caches, docs, man pages, locales other than C.
chroot "$root" apt-get clean
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/* "$root"/var/log/* \
  "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/usr/share/locale/*

echo "container-base: node $NODE_VERSION ($node_arch) and npm $NPM_VERSION from the npm registry"
packs="$work/packs"
mkdir -p "$packs"
(cd "$packs" && npm pack --silent "node-linux-$node_arch@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null)
mkdir -p "$packs/node" "$root/usr/local/bin" "$root/usr/local/lib/node_modules/npm"
tar -xzf "$packs"/node-linux-"$node_arch"-*.tgz -C "$packs/node"
install -m 0755 "$packs/node/package/bin/node" "$root/usr/local/bin/node"
tar -xzf "$packs"/npm-*.tgz -C "$root/usr/local/lib/node_modules/npm" --strip-components=1
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
chroot "$root" /usr/local/bin/node --version

echo "container-base: importing as $BASE_IMAGE"
tar -C "$root" -c . | podman import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=$NODE_VERSION" \
  --change 'CMD ["node"]' \
  - "$BASE_IMAGE"
[ -n "${WORK_DIR:-}" ] || rm -rf "$work"
podman image inspect --format '{{.Id}} {{.Size}}' "$BASE_IMAGE"
