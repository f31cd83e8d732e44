#!/usr/bin/env bash
# npm run test:image: the stand-in for the Dockerfile's base image (once per machine), then the
# image's tests (test/image/image.test.ts), which build the image and run it.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v podman >/dev/null || { echo "podman not found: apt-get install -y podman runc mmdebstrap uidmap (.ci/run does it)" >&2; exit 1; }
major=$(sed -n 's/^ARG NODE_VERSION=//p' Dockerfile)
bash test/image/stand-in-base.sh "$major"
exec npx vitest run --config test/image/vitest.config.ts "$@"
