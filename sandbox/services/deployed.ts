/**
 * Sandbox services served the way people deploy x402 services: with the x402 packages'
 * middlewares, not with @x402/core by hand. `@x402/express`'s `paymentMiddleware` in an Express
 * app, `@x402/hono`'s in a Hono app (on @hono/node-server), and a Next.js App Router route handler
 * wrapped with `@x402/next`'s `withX402`, called with the NextRequest a Next server would hand it
 * (the handler is what a person exports from `app/api/.../route.ts`; running a whole Next server
 * per service would only add minutes to the sandbox's start). Each middleware answers the 402,
 * verifies, runs the handler and settles only a handler's success, as it does in production.
 * They can be switched offline (503) like the sandbox's own; the misbehaviours tests script
 * (x402-service.ts) belong to the sandbox's own server only.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { getRequestListener } from "@hono/node-server";
import { paymentMiddleware as expressPayment } from "@x402/express";
import { paymentMiddleware as honoPayment } from "@x402/hono";
import { withX402 } from "@x402/next";
import express from "express";
import { Hono } from "hono";
import { NextRequest, NextResponse } from "next/server";
import { CORS_HEADERS, HttpError, listen, sendJson } from "../http";
import { ServiceInputError, type ServiceDefinition } from "./definition";
import { answerOffline, NO_CHANNEL_ACTIVITY, receiptKeyOf, routeConfigFor, sandboxResourceServer, type RunningService, type StartServiceParameters } from "./x402-service";

type Answer = { status: number; body: unknown };

/** The definition's handler as each framework calls it: 200 with its data, 400 for bad input, 500 otherwise. */
async function answerOf(definition: ServiceDefinition, query: URLSearchParams, body: unknown): Promise<Answer> {
  try {
    return { status: 200, body: await definition.handle({ query, body }) };
  } catch (error) {
    if (error instanceof ServiceInputError) return { status: 400, body: { error: error.message } };
    return { status: 500, body: { error: "internal error" } };
  }
}

export async function startDeployedService({ definition, port, facilitatorUrl, usdcAddress, payTo, solana, payToKey, log = () => undefined }: StartServiceParameters): Promise<RunningService> {
  const madeWith = definition.madeWith;
  if (!madeWith) throw new Error(`${definition.name} names no middleware`);
  if (definition.channel) throw new Error(`${definition.name}: channel services are served by the sandbox's own server (x402-service.ts)`);
  const { resourceServer, paymentIdentifiers } = sandboxResourceServer({ facilitatorUrl, solana, receiptKey: receiptKeyOf(definition, payToKey) });

  let online = true;
  // Made once the port is known: the 402 names the resource's own URL.
  let listener: Listener | undefined;
  const server = await listen(port, async (request, response) => {
    // What a deployer adds with a CORS middleware, so browser x402 clients can read PAYMENT-RESPONSE
    // (the sandbox's server answers the preflight itself).
    for (const [name, value] of Object.entries(CORS_HEADERS)) response.setHeader(name, value);
    if (!online) return answerOffline(response, definition);
    if (!listener) throw new HttpError(503, "service is starting");
    listener(request, response);
  });
  const resourceUrl = `${server.url}${definition.path}`;
  const routes = { [`${definition.method} ${definition.path}`]: routeConfigFor(definition, { resourceUrl, usdcAddress, payTo, solana }) };
  listener = requestListener(madeWith, definition, { routes, resourceServer, origin: server.url });
  log(`${definition.name}: served by ${madeWith} on ${server.url}`);

  const unsupported = (what: string) => () => {
    throw new Error(`${definition.name} is served by ${madeWith}: ${what} is scripted on the sandbox's own services only`);
  };
  return {
    ...server,
    definition,
    resourceUrl,
    payTo,
    solanaPayTo: definition.rails?.includes("solana") ? solana?.payTo : undefined,
    isOnline: () => online,
    setOnline: (value) => {
      online = value;
    },
    setFailing: unsupported("failing"),
    setAfterSettlement: unsupported("misbehaving after settlement"),
    setClaimedSettlement: unsupported("claiming a settlement"),
    setReceiptForgery: unsupported("forging a receipt"),
    paymentIdentifiers,
    channelActivity: NO_CHANNEL_ACTIVITY,
  };
}

type Listener = (request: IncomingMessage, response: ServerResponse) => void;

function requestListener(
  madeWith: NonNullable<ServiceDefinition["madeWith"]>,
  definition: ServiceDefinition,
  { routes, resourceServer, origin }: { routes: Record<string, ReturnType<typeof routeConfigFor>>; resourceServer: ReturnType<typeof sandboxResourceServer>["resourceServer"]; origin: string },
): Listener {
  const queryOf = (url: string) => new URL(url, origin).searchParams;
  switch (madeWith) {
    case "@x402/express": {
      const app = express();
      app.use(express.json());
      app.use(expressPayment(routes, resourceServer));
      app[definition.method === "POST" ? "post" : "get"](definition.path, async (request, response) => {
        const answer = await answerOf(definition, queryOf(request.originalUrl), request.body);
        response.status(answer.status).json(answer.body);
      });
      return app;
    }
    case "@x402/hono": {
      const app = new Hono();
      app.use(honoPayment(routes, resourceServer));
      app.on(definition.method, definition.path, async (context) => {
        const body = definition.method === "POST" ? await context.req.json().catch(() => undefined) : undefined;
        const answer = await answerOf(definition, queryOf(context.req.url), body);
        return context.json(answer.body as object, answer.status as 200);
      });
      // @hono/node-server's listener, without its own server: the sandbox's server hands it requests.
      return getRequestListener(app.fetch);
    }
    case "@x402/next": {
      const handler = withX402(
        async (request: NextRequest) => {
          const body = definition.method === "POST" ? await request.json().catch(() => undefined) : undefined;
          const answer = await answerOf(definition, request.nextUrl.searchParams, body);
          return NextResponse.json(answer.body, { status: answer.status });
        },
        // Named by method and path (one RouteConfig alone would be the wildcard route).
        routes,
        resourceServer,
      );
      return (request, response) => {
        void toNextRequest(request, origin)
          .then(handler)
          .then((answer) => writeResponse(answer, response))
          .catch(() => sendJson(response, 500, { error: "internal error" }));
      };
    }
  }
}

/** The request as Next hands it to a route handler. */
async function toNextRequest(request: IncomingMessage, origin: string): Promise<NextRequest> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  }
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
  return new NextRequest(new URL(request.url ?? "/", origin), { method: request.method ?? "GET", headers, ...(body ? { body } : {}) });
}

async function writeResponse(answer: Response, response: ServerResponse): Promise<void> {
  response.writeHead(answer.status, Object.fromEntries(answer.headers));
  response.end(Buffer.from(await answer.arrayBuffer()));
}

