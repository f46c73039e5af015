# Atelier in a container: the npm package (what `npm pack` builds) installed with production
# dependencies only, run as a non-root user with the data directory on a volume.
# Never built here: no Docker engine runs on the machine this was written on (see README, "Docker").
#
#   docker build -t atelier .
#   docker run --rm -v atelier-data:/data atelier tenant create --name "My shop" --json   # once: ids + API key
#   docker run -d -p 3333:3333 -v atelier-data:/data -e ATELIER_ALLOWED_HOSTS=localhost atelier

ARG NODE_TAG=20-bookworm

# Full Debian image: python3, make and g++ for better-sqlite3, which compiles from source (no prebuilt
# binary is reachable from the npm registry). npm 11 as in development: npm 10 fails to install Vite 8.
FROM node:${NODE_TAG} AS toolchain
RUN npm install --global --no-audit --no-fund npm@11.19.1

# 1. The package: full dev install, then `npm pack` (prepack compiles the server with tsc, builds the
#    panels with Vite and converts the word vectors).
FROM toolchain AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm pack --pack-destination /tmp \
 && mv /tmp/atelier-*.tgz /tmp/atelier.tgz

# 2. The production install of that tarball, as a user would do it.
FROM toolchain AS install
WORKDIR /app
COPY --from=build /tmp/atelier.tgz /tmp/atelier.tgz
RUN echo '{"name":"atelier-app","private":true}' > package.json \
 && npm install --omit=dev --no-audit --no-fund /tmp/atelier.tgz \
 && rm /tmp/atelier.tgz

# 3. Runtime: slim image, code owned by root and read-only to the `node` user (uid 1000) that runs it.
FROM node:${NODE_TAG}-slim
ENV NODE_ENV=production \
    ATELIER_DATA_DIR=/data \
    ATELIER_HOST=0.0.0.0 \
    ATELIER_PORT=3333
COPY --from=install /app /app
RUN mkdir /data && chown node:node /data
USER node
WORKDIR /data
VOLUME ["/data"]
EXPOSE 3333
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.ATELIER_PORT || 3333) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "/app/node_modules/atelier/bin/atelier.mjs"]
CMD ["serve", "--http"]
