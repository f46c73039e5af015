# Atelier in a container: the npm package (what `npm pack` builds) installed with production
# dependencies only, run as a non-root user with the data directory on a volume.
# Built and run by CI (scripts/container-test.sh, a step of .ci/run) on a base it makes from Debian's
# packages and the npm registry's Node; see README, "Docker".
#
#   docker build -t atelier .
#   docker run --rm -v atelier-data:/data atelier tenant create --name "My shop" --json   # once: ids + API key
#   docker run -d -p 3333:3333 -v atelier-data:/data -e ATELIER_ALLOWED_HOSTS=localhost atelier
#
# Base images, as build arguments: BUILD_IMAGE for the stages that install and pack, RUNTIME_IMAGE for the
# image that runs. Any Debian bookworm image with Node (node, npm, headers under /usr/local as the official
# images have them) and a `node` user (uid 1000) will do; both must carry the same Node major, since a
# native addon compiled in the build stage runs in the runtime one.
ARG BUILD_IMAGE=node:24-bookworm-slim
ARG RUNTIME_IMAGE=node:24-bookworm-slim

# Toolchain for native addons that compile at install: python3, make and g++ (better-sqlite3 12 compiles
# from source when its prebuilt binary is not reachable; 13 ships its binaries in the package). node-gyp
# takes the image's own Node headers (npm_config_nodedir) instead of downloading them from nodejs.org.
# npm 11 as in development: npm 10 (Node 22's) fails to install Vite 8.
FROM ${BUILD_IMAGE} AS toolchain
ENV npm_config_nodedir=/usr/local \
    npm_config_update_notifier=false
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
RUN npm install --global --no-audit --no-fund npm@11.19.1

# 1. The package: full dev install, then `npm pack` (prepack compiles the server with tsc, builds the
#    panels with Vite and converts the word vectors). No install scripts: packing loads no native addon,
#    so better-sqlite3 is not compiled twice (the production install below builds the one that ships).
FROM toolchain AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY . .
RUN npm pack --pack-destination /tmp \
 && mv /tmp/atelier-*.tgz /tmp/atelier.tgz

# 2. The production install of that tarball, as a user would do it: unpacked, then `npm ci --omit=dev` with the
#    lockfile it ships (npm-shrinkwrap.json), so the image runs the dependency versions the suite ran on.
FROM toolchain AS install
WORKDIR /app
COPY --from=build /tmp/atelier.tgz /tmp/atelier.tgz
RUN tar -xzf /tmp/atelier.tgz --strip-components=1 \
 && npm ci --omit=dev --no-audit --no-fund \
 && rm /tmp/atelier.tgz

# 3. Runtime: slim image, code owned by root and read-only to the `node` user (uid 1000) that runs it.
FROM ${RUNTIME_IMAGE}
ENV NODE_ENV=production \
    ATELIER_DATA_DIR=/data \
    ATELIER_HOST=0.0.0.0 \
    ATELIER_ALLOWED_HOSTS=localhost,127.0.0.1 \
    ATELIER_PORT=3333
COPY --from=install /app /app
RUN mkdir /data && chown node:node /data
USER node
WORKDIR /data
VOLUME ["/data"]
EXPOSE 3333
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.ATELIER_PORT || 3333) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "/app/bin/atelier.mjs"]
CMD ["serve", "--http"]
