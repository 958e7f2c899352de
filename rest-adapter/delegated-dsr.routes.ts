import { presentDsrJob } from './dsr-job.presenter';
import { defineRoute, type RouteRecord } from './route-record';

/** `POST /v1/developer/dsr/initiate` (D15, docs/data-rights.md "Delegated requests"): a tenant asks, for one of its users, for the user's data. */
export const DELEGATED_DSR_ROUTES: readonly RouteRecord[] = [
  defineRoute({
    method: 'POST',
    path: '/v1/developer/dsr/initiate',
    guard: { kind: 'tenant_key', scope: 'dsr:manage', owns: null },
    bucket: 'default',
    // The service reads the body (its fields and the callback address rules) and answers each fault 400.
    body: { read: 'json' },
    responses: {
      202: {
        description: 'Waiting for the user',
        schema: {
          jsonSchema: {
            allOf: [
              { $ref: '#/components/schemas/DsrJob' },
              {
                type: 'object',
                required: ['purpose', 'callback_url', 'callback_signing_secret'],
                properties: { purpose: { const: 'access' }, callback_url: { type: 'string', format: 'uri' }, callback_signing_secret: { type: 'string' } },
              },
            ],
          },
        },
      },
      403: { description: 'The key lacks `dsr:manage` (`insufficient_scope`)', schema: { component: 'ErrorBody' } },
    },
    errors: ['BadRequest', 'NotFound'],
    doc: { operationId: 'initiateDelegatedRequest', tags: ['data-rights'], summary: "A tenant asks, for one of its users, for the user's data; the user confirms by mail (sign-in required)" },
    handler: async ({ req, ctx, services }) => {
      const { job, callbackSigningSecret } = await services.dataRights.delegated.initiate(ctx.actor, req.body ?? {});
      return { status: 202, body: { ...presentDsrJob(job), purpose: 'access', callback_url: job.callbackUrl, callback_signing_secret: callbackSigningSecret } };
    },
  }),
];
