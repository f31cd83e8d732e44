# events-mirror's container image: the CLI as the entrypoint, one image for every process type
# (`migrate`, `scheduler`, `worker`, `sync --once`, `emulator`, `demo`). docs/operations.md shows
# running it; `npm run test:image` builds and tests it.
#
#   docker build -t events-mirror .
#   docker run --rm events-mirror demo
#
# Everything of the final image but the package comes before it, so a rebuild reuses those layers.
ARG NODE_VERSION=26

# Compile the TypeScript, pack the package as npm would publish it, and install its production
# dependencies as the lockfile pins them in /package. Neither the checkout nor the devDependencies
# reach the final image.
FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /build
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm \
    npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN --mount=type=cache,target=/root/.npm \
    npm run build \
 && npm pack --ignore-scripts --pack-destination /tmp \
 && mkdir /package \
 && tar -xzf /tmp/events-mirror-*.tgz -C /package --strip-components=1 \
 && cp package-lock.json /package/ \
 && cd /package \
 && npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && rm package-lock.json

FROM node:${NODE_VERSION}-bookworm-slim
ARG VERSION=0.1.0
ARG SOURCE=https://github.com/events-mirror/events-mirror
LABEL org.opencontainers.image.title="events-mirror" \
      org.opencontainers.image.description="Mirror the Events API of MongoDB Atlas / Cloud Manager into PostgreSQL" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.source="${SOURCE}"
# /data holds the embedded warehouse (used when DATABASE_URL is unset) and the demo's files.
RUN mkdir /data \
 && chown node:node /data \
 && ln -s /opt/events-mirror/dist/src/cli.js /usr/local/bin/events-mirror
ENV EVENTS_MIRROR_DATA_DIR=/data
VOLUME ["/data"]
WORKDIR /home/node
USER node
# The worker's and the scheduler's probes and metrics (/livez, /readyz, /healthz, /metrics).
EXPOSE 9464 9465
# Node is PID 1 and receives the stop signal itself (no shell in between): the worker and the
# scheduler drain on SIGTERM. Give a worker worker.shutdownTimeoutMs + 9 s (39 s by default) before
# SIGKILL: `docker stop -t 39`, Compose's stop_grace_period, Kubernetes' terminationGracePeriodSeconds.
ENTRYPOINT ["node", "/opt/events-mirror/dist/src/cli.js"]
CMD ["--help"]
# Owned by root, as the rest of the system: the node user runs the code and cannot change it.
COPY --from=build /package /opt/events-mirror
