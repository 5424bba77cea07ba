# The app on one machine: Next's standalone server (only the files it needs) on Node 22, run as
# the unprivileged `node` user. Build: `docker build -t x402-payment-agent .`
# Run (see the README's Deploy section for every variable):
#   docker run -p 3000:3000 -e PAYMENT_TOKEN_SECRET=... -e DATABASE_URL=... \
#     -e X402_DISCOVERY_URLS=... -e X402_NETWORKS=eip155:8453 -e RPC_URL_8453=... x402-payment-agent
# Without DATABASE_URL the ledger is PGlite in /app/.data: mount a volume there to keep it.

FROM node:22-bookworm-slim AS build
WORKDIR /app
# next.config.ts makes the self-contained server only when asked: `next start` needs the usual output.
ENV NEXT_TELEMETRY_DISABLED=1 NEXT_OUTPUT=standalone
COPY package.json package-lock.json ./
# Not `npm ci`: the lockfile may omit other platforms' optional packages, which npm ci rejects.
RUN npm install --no-audit --no-fund
COPY . .
RUN npm run build

FROM node:22-bookworm-slim AS run
WORKDIR /app
ENV NODE_ENV=production \
    NEXT_TELEMETRY_DISABLED=1 \
    PORT=3000 \
    HOSTNAME=0.0.0.0
COPY --from=build --chown=node:node /app/.next/standalone ./
COPY --from=build --chown=node:node /app/.next/static ./.next/static
RUN mkdir -p /app/.data && chown node:node /app/.data
USER node
VOLUME ["/app/.data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=15s --start-period=20s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/api/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "server.js"]
