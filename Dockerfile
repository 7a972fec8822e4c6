# The gateway's image: one image for every role and command (docs/deployment.md, "Containers").
#
#   docker build -t fiscal-gateway .
#   docker run -p 8080:8080 -p 8089:8089 -v fg-data:/data fiscal-gateway          # development start
#   docker run … fiscal-gateway serve --api-only | serve --workers-only | migrate | tenant list | …
#
# Stage 1 installs every dependency and compiles the workspace packages, src/ and the console;
# stage 2 is node:20-bookworm-slim with the compiled output and the production dependencies only.

FROM docker.io/library/node:20-bookworm-slim AS build
WORKDIR /app
ENV NPM_CONFIG_UPDATE_NOTIFIER=false
# Dependencies first, from the lockfile alone, so a source change reuses this layer. The root's
# `prepare` (the build) needs the sources: it is run below, after they are copied.
COPY package.json package-lock.json .npmrc ./
COPY packages/client/package.json packages/client/
COPY packages/simulator/package.json packages/simulator/
COPY packages/vsdc-protocol/package.json packages/vsdc-protocol/
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build-if-stale.mjs scripts/
COPY packages/vsdc-protocol/ packages/vsdc-protocol/
COPY packages/simulator/ packages/simulator/
COPY src/ src/
COPY console/ console/
# Then the production dependencies only, without what no process reads: type declarations,
# source maps (Node reads none without --enable-source-maps) and the packages' documents.
RUN CONSOLE_BUILD_QUIET=1 node scripts/build-if-stale.mjs --force vsdc-protocol simulator gateway console \
 && npm prune --omit=dev --no-audit --no-fund \
 && rm -rf node_modules/@fiscal-gateway/client node_modules/.package-lock.json \
 && find node_modules -type f \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.map' -o -name '*.md' \) -delete

FROM docker.io/library/node:20-bookworm-slim
ARG GATEWAY_VERSION=0.1.0
LABEL org.opencontainers.image.title="fiscal-gateway" \
      org.opencontainers.image.description="Fiscalises merchants' sales with the tax authority through VSDCs; offline queue, ordered filing, signed webhooks." \
      org.opencontainers.image.version="${GATEWAY_VERSION}" \
      org.opencontainers.image.licenses="UNLICENSED" \
      org.opencontainers.image.base.name="docker.io/library/node:20-bookworm-slim"
# tini as PID 1: it hands SIGTERM and SIGINT to the gateway (whose `serve` stops gracefully on
# them) and reaps what exits; node as PID 1 would ignore them in every command without a handler.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/log/apt /var/log/dpkg.log
WORKDIR /app
# Owned by root: the gateway (user node) reads its code and cannot change it.
COPY --from=build /app/node_modules/ node_modules/
COPY --from=build /app/package.json ./
COPY --from=build /app/packages/vsdc-protocol/package.json packages/vsdc-protocol/
COPY --from=build /app/packages/vsdc-protocol/dist/ packages/vsdc-protocol/dist/
COPY --from=build /app/packages/simulator/package.json packages/simulator/
COPY --from=build /app/packages/simulator/dist/ packages/simulator/dist/
COPY --from=build /app/console/dist/ console/dist/
COPY --from=build /app/dist/ dist/
COPY bin/fiscal-gateway.js bin/
# The embedded database lives in /data/db; its lock, and in development its key file, demo
# credentials and simulator state, beside it in /data: all on the volume.
RUN ln -s /app/bin/fiscal-gateway.js /usr/local/bin/fiscal-gateway \
 && mkdir /data && chown node:node /data
VOLUME /data
ENV HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/data/db \
    NODE_OPTIONS=--max-old-space-size=192 \
    MALLOC_ARENA_MAX=2
USER node
EXPOSE 8080
# Liveness: /healthz on METRICS_PORT when it is set (the only port of `serve --workers-only`),
# else on PORT.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "const m = process.env.METRICS_PORT; const port = m && m !== '0' ? m : process.env.PORT; fetch(`http://127.0.0.1:${port}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/bin/tini", "--", "node", "/app/dist/main.js"]
CMD ["serve"]
