import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import express, { NextFunction, Request, Response } from 'express';
import { GATEWAY_KEYS_PATH, gatewayKeysRoute, gatewayProxyRouter } from '../rest-adapter/gateway-proxy.router';
import { mountRoutes } from '../rest-adapter/route-record';
import { bucketDisagreements, policyOf, ROUTE_POLICY_TABLE, V1_ROUTES } from '../rest-adapter/v1-routes';
import { DecisionHistory } from '../src/sessions/decision-history';
import { formatGraphQLError, httpGraphQLError } from '../schema/graphql-errors';
import { jitExecutor } from '../schema/jit-executor';
import { attachSubscriptionServer, type SubscriptionServer } from '../subscriptions/subscription-server';
import { httpStatusFromErrorCode } from '../schema/http-status.plugin';
import type { Container } from './container';
import type { RequestContext } from '../src/context';
import { apolloMiddleware } from '../http/apollo-middleware';
import { answerClientErrors } from '../http/client-errors';
import { errorPage } from '../http/error-pages';
import { examplesRouter } from '../web/examples.router';
import { sendError } from '../http/error-response';
import { graphiql } from '../web/graphiql/graphiql.router';
import { BODY_LIMIT_BYTES, bodyErrors } from '../http/json-body';
import { isClientAbort } from '../http/client-errors';
import { requestContext } from '../http/request-context.middleware';
import { hostedRouter } from '../web/hosted/hosted.router';
import { hostedApiRouter } from '../rest-adapter/hosted-api.router';
import { digitalIdRouter } from '../rest-adapter/digital-id.router';
import { evidenceRouter } from '../rest-adapter/evidence.router';
import { isOperatorCredential, OPERATOR_HEADER } from '../src/auth/operator';
import { chargeClientIp, MeterDeps, meterClientIp, meterGraphQL, meterOidc, meterV1 } from '../http/rate-limit.middleware';
import { authenticate } from '../http/authenticate.middleware';
import { subscriptionStartMeter } from '../src/rate-limit/rate-limit.service';
import { oidcRouter } from '../rest-adapter/oidc.router';
import { interactionRouter } from '../web/accounts/interaction.router';
import { INTERACTION_PATH, OIDC_MOUNT } from '../src/oidc/oidc-provider';
import { claimPushedRequest } from '../src/oidc/par-single-use';
import { ME_PATHS, meGate } from '../rest-adapter/me-gate';
import { dataRightsPublicRouter } from '../rest-adapter/data-rights-public.router';
import { accountRouter } from '../web/accounts/account.router';
import { AccountSession } from '../web/accounts/account-session';
import { ACCOUNT_PAGES_PATH, CONSOLE_PATH } from '../src/oidc/first-party-sign-in';
import { consoleRouter } from '../web/console/console.router';
import { inventoryRoutes } from '../http/route-inventory';
import { healthRoutes } from '../http/health.routes';
import { livenessOf } from './liveness-of';
import { requestMetrics } from '../http/request-metrics.middleware';
import { refuseWrongCredential, tenantRouteGate } from '../http/policy-gate.middleware';

export const PROJECT_ROOT = path.resolve(__dirname, '..', '..');

/** Limits on what one GraphQL operation may ask for; each refusal names the limit. */
export const GRAPHQL_LIMITS = { maxDepth: 10, maxAliases: 15, maxCost: 5000, maxTokens: 2000, maxDirectives: 20 };

export type HttpServer = { app: express.Express; server: http.Server; apollo: ApolloServer<RequestContext>; subscriptions: SubscriptionServer };

export async function createHttpServer(c: Container): Promise<HttpServer> {
  const app = express();
  app.disable('x-powered-by');
  app.locals.publicBaseUrl = c.config.publicBaseUrl; // problem documents' `type` (http/error-response.ts)
  app.set('trust proxy', trustProxySetting(c.config.trustProxy));
  const server = http.createServer({ keepAliveTimeout: KEEP_ALIVE_MS, headersTimeout: KEEP_ALIVE_MS + 1_000 }, app);
  answerClientErrors(server);

  const armor = new ApolloArmor({
    maxDepth: { n: GRAPHQL_LIMITS.maxDepth },
    maxAliases: { n: GRAPHQL_LIMITS.maxAliases },
    costLimit: { maxCost: GRAPHQL_LIMITS.maxCost },
    // Armor's token limit re-parses in a plugin hook, which turns every syntax error into a 500;
    // graphql-js enforces the same limit inside Apollo's own parse, where syntax errors are 400s.
    maxTokens: { enabled: false },
    maxDirectives: { n: GRAPHQL_LIMITS.maxDirectives },
    blockFieldSuggestion: { enabled: false }, // introspection is public; hiding suggestions would only hurt our users
  }).protect();
  const apollo = new ApolloServer<RequestContext>({
    gateway: jitExecutor(c.operations), // c.schema, executed by compiled operations (see schema/jit-executor.ts)
    plugins: [
      ...armor.plugins,
      httpStatusFromErrorCode,
      // A shutdown lets running requests finish for this long, then cuts them (docs/operations.md, "Shutdown").
      ApolloServerPluginDrainHttpServer({ httpServer: server, stopGracePeriodMillis: HTTP_DRAIN_MS }),
      // Nothing here is cacheable by a CDN (every answer depends on the Authorization header), and the
      // default cache-control plugin wraps every field resolver to compute hints no one reads.
      ApolloServerPluginCacheControlDisabled(),
    ],
    validationRules: armor.validationRules,
    parseOptions: { maxTokens: GRAPHQL_LIMITS.maxTokens },
    allowBatchedHttpRequests: false,
    includeStacktraceInErrorResponses: false,
    introspection: true,
    stopOnTerminationSignals: false, // main.ts owns shutdown order: HTTP first, then jobs, then the database
    // Credentials travel only in the Authorization header, which a cross-site form cannot set, so
    // Apollo's CSRF preflight requirement would only break plain GET queries.
    csrfPrevention: false,
    formatError: formatGraphQLError(c.logger),
  });
  await apollo.start();
  // graphql-ws on the same server and path: a standard client and GraphiQL's subscription tab connect unchanged.
  const subscriptions = attachSubscriptionServer(server, {
    schema: c.schema,
    contexts: c.contexts,
    hub: c.statusHub,
    bulkImports: c.bulkImports,
    webhookEvents: c.webhookEvents,
    auth: c.auth,
    logger: c.logger,
    limits: c.config.subscriptions,
    validationRules: armor.validationRules,
    beforeSubscribe: c.rateLimits ? subscriptionStartMeter(c.rateLimits) : undefined,
  });

  app.use(requestMetrics(app, c.metrics));
  app.use(requestContext(app, c.logger));
  // Rate limiting covers /v1 and /graphql (GraphiQL included) only: health, the OpenAPI document, error pages and the
  // end-user hosted page are unmetered (docs/rate-limits.md).
  const meter: MeterDeps | null = c.rateLimits
    ? { limits: c.rateLimits, publicBaseUrl: c.config.publicBaseUrl, clientOfAccessToken: (t) => c.accounts.clients.clientOfOpaqueToken(t) }
    : null;
  // Both API surfaces authenticate first, in this one middleware; metering then charges who it found.
  const authenticated = authenticate(c.contexts);

  app.use(
    '/graphql',
    graphiql(meter ? chargeClientIp(meter, 'default') : undefined),
    express.json({ limit: BODY_LIMIT_BYTES }),
    authenticated,
    ...(meter ? [meterGraphQL(meter)] : []),
    apolloMiddleware(apollo, async ({ req }) => {
      const { context, error } = req.auth;
      if (error) throw httpGraphQLError(error);
      return { ...context, operator: isOperatorCredential(req.header(OPERATOR_HEADER), c.config.adminApiKey) };
    }),
  );

  // The OpenID Provider reads its own requests: before any body parser and the API-key authentication.
  const oidcMeter = meter ? [meterOidc(meter)] : [];
  const accountsCssFile = path.join(PROJECT_ROOT, 'web', 'accounts', 'accounts.css');
  const accountsCss = fs.existsSync(accountsCssFile) ? fs.readFileSync(accountsCssFile) : Buffer.alloc(0);
  app.get('/accounts/accounts.css', (_req, res) => {
    res.setHeader('cache-control', 'public, max-age=300');
    res.type('text/css').send(accountsCss);
  });
  const interactionPath = `${OIDC_MOUNT}${INTERACTION_PATH}`;
  app.use(interactionPath, ...oidcMeter, interactionRouter(c.accounts.provider, c.accounts.signIn, c.accounts.clients, interactionPath));
  app.use(oidcRouter({ provider: c.accounts.provider, claimPushedRequest: (uri) => claimPushedRequest(c.db, uri) }, oidcMeter));

  // The hosted page's API takes the page credential only (authenticated by the same middleware as a
  // `hosted_page` actor), and the signed evidence links carry a signature: both sit before the
  // API-key authentication of /v1.
  app.use(
    '/v1/hosted',
    hostedApiRouter(
      { flow: c.hostedFlow, links: c.links, mobileAppLink: c.config.vault.mobileAppLink, digitalIds: c.digitalIds },
      { open: meter ? [meterClientIp(meter, 'default')] : [], page: [authenticate(c.contexts, 'page'), ...(meter ? [meterV1(meter)] : []), refuseWrongCredential] },
    ),
  );
  // Routes whose link is the credential (or that need none) are counted per client address in `default`.
  if (meter) app.use(['/v1/evidence', '/v1/.well-known/export-keys', GATEWAY_KEYS_PATH, '/v1/exports', '/v1/digital-id'], meterClientIp(meter, 'default'));
  gatewayKeysRoute(app, c.serviceActors);
  app.use('/v1/evidence', evidenceRouter(c.evidence));
  app.use('/v1/digital-id', digitalIdRouter(c.digitalIds));
  app.use(dataRightsPublicRouter(c.dataRights));
  // The service's own account pages (keep a verification, answer a delegated request): per client address in `default`, like the sign-in pages.
  if (meter) app.use(ACCOUNT_PAGES_PATH, meterClientIp(meter, 'default'));
  app.use(
    ACCOUNT_PAGES_PATH,
    accountRouter({
      session: new AccountSession(c.accounts.firstParty, c.config.publicBaseUrl.startsWith('https://')),
      keep: c.keepVerification,
      delegated: c.dataRights.delegated,
      portal: {
        users: c.accounts.users,
        policy: c.accounts.userTokens,
        rights: c.userRights,
        exports: c.dataRights.exports,
        dsrJobs: c.dsrJobs,
        verifications: c.accounts.verifications,
        apps: c.accounts.connectedApps,
      },
    }),
  );

  // The tenant staff's console (docs/console.md): its own sign-in cookie; per client address in `default`, like the account pages.
  if (meter) app.use(CONSOLE_PATH, meterClientIp(meter, 'default'));
  app.use(CONSOLE_PATH, consoleRouter({ console: c.console, work: c.consoleWork, evidence: c.evidence, secureCookies: c.config.publicBaseUrl.startsWith('https://') }));

  // /v1: authenticate, meter, refuse a wrong credential, then route; unknown /v1 paths are 404 error bodies.
  const v1 = express.Router();
  v1.use(authenticated);
  if (meter) v1.use(meterV1(meter));
  v1.use(tenantRouteGate(ROUTE_POLICY_TABLE)); // a wrong credential first, then the route's policy
  v1.use(ME_PATHS, meGate(c.accounts.userTokens, ROUTE_POLICY_TABLE)); // the end user's token and what the route needs, before the /v1/me records
  // The route records (rest-adapter/v1-routes.ts), straight onto /v1 rather than into nested routers: one router level less on every call.
  mountRoutes(v1, V1_ROUTES, {
    sessions: c.sessions,
    hostedLink: c.hostedLink,
    evidence: c.evidence,
    decisions: new DecisionHistory(c.db),
    chip: c.chip,
    webhooks: c.webhooks,
    retention: c.retention,
    flows: c.flows,
    me: c.accounts.me,
    userRights: c.userRights,
    dataRights: c.dataRights,
    dsrJobs: c.dsrJobs,
    bulkImports: c.bulkImports,
    hostedUrl: (id) => c.links.url(id),
  });
  await gatewayProxyRouter({ upstreamUrl: c.config.dataRights.socialUpstreamUrl, timeoutMs: c.config.dataRights.proxyTimeoutMs, actors: c.serviceActors }, v1);
  v1.use((req, res) => {
    if (!req.auth.context?.actor) return sendError(res, 'unauthorized', 'Missing or invalid API key');
    sendError(res, 'not_found', 'No such endpoint');
  });
  app.use('/v1', v1);

  // The unmetered platform routes, after the API surfaces: the hot /v1 and /graphql paths are matched first.
  healthRoutes(app, {
    liveness: () => livenessOf(c),
    readiness: c.readiness,
    metrics: c.metrics,
    metricsToken: c.config.metrics.port === undefined ? c.config.metrics.token : undefined,
  });
  const openapi = withServers(fs.readFileSync(path.join(PROJECT_ROOT, 'openapi.yaml'), 'utf8'), c.config.publicBaseUrl, c.config.stagingBaseUrl);
  app.get('/openapi.yaml', (_req, res) => {
    res.type('application/yaml').send(openapi);
  });
  app.get('/errors/:code', errorPage);
  app.use(hostedRouter(c.flows, c.sessions, c.links));
  if (c.config.examplesEnabled) app.use('/examples', examplesRouter(PROJECT_ROOT));

  app.use((_req: Request, res: Response) => sendError(res, 'not_found', 'No such endpoint'));
  app.use(bodyErrors);
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    // A client that went away mid-request (an upload cut off) is no fault of ours: one info line, no stack.
    if (isClientAbort(err, req)) {
      req.log.info({ code: (err as { code?: string }).code ?? 'aborted', method: req.method, path: req.path }, 'client aborted the request');
      return void res.destroy();
    }
    req.log.error({ err }, 'unhandled error');
    if (res.headersSent) return res.end();
    sendError(res, 'internal_error', 'Internal server error');
  });

  // The authorization policy names every route (the records' rows, src/auth/authorization-policy.ts's others): a route without a row stops the start,
  // and so does a record whose bucket is not the one the meter charges.
  const misbucketed = bucketDisagreements();
  if (misbucketed.length > 0) throw new Error(`route records whose bucket disagrees with src/rate-limit/buckets.ts: ${misbucketed.join('; ')}`);
  const routes = inventoryRoutes(app);
  const unpolicied = routes.filter((r) => !policyOf(r.method, r.path));
  if (unpolicied.length > 0) throw new Error(`routes without an authorization policy in src/auth/authorization-policy.ts: ${unpolicied.map((r) => `${r.method} ${r.path}`).join(', ')}`);
  // The authorization matrix (test/e2e/authorization-matrix.test.ts) reads this line to try every route the server serves.
  c.logger.debug({ routes: routes.map((r) => `${r.method} ${r.path}`) }, 'routes inventoried');
  return { app, server, apollo, subscriptions };
}

/**
 * How long an idle kept-alive connection stays open (announced as `Keep-Alive: timeout=65`). Node's 5 s
 * default races a client that reuses its connection just as the server closes it: a client whose process
 * stalls a few seconds (a busy event loop, a paused container) writes its next request on a closed socket
 * and sees EPIPE or "other side closed" instead of an answer. 65 s also outlasts the 60 s idle timeout of
 * common load balancers, which must never find their upstream connection closed first.
 */
export const KEEP_ALIVE_MS = 65_000;

/** How long a shutdown waits for running requests (a slow upload) before cutting them; part of the 24 s budget of app/process-exit.ts. */
export const HTTP_DRAIN_MS = 8_000;

/** The document as served names this deployment's production and staging servers (docs/decisions.md D19). */
function withServers(openapi: string, production: string, staging: string): string {
  const servers = ['servers:', `  - url: ${production}`, '    description: Production', `  - url: ${staging}`, '    description: Staging', ''].join('\n');
  return openapi.replace(/^servers:\n(?:[ #].*\n)+/m, servers);
}

function trustProxySetting(value: string | undefined): boolean | number | string {
  if (value === undefined || value === '' || value === 'false') return false;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}
