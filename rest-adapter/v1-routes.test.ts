import express from 'express';
import { inventoryRoutes } from '../http/route-inventory';
import { NON_RECORD_V1_POLICY } from '../src/auth/authorization-policy';
import { mountRoutes, type RouteRecord } from './route-record';
import { bucketDisagreements, policyOf, V1_ROUTES } from './v1-routes';
import type { V1Services } from './v1-services';

const mounted = (records: readonly RouteRecord[]) => {
  const app = express();
  const v1 = express.Router();
  mountRoutes(v1, records, {} as V1Services); // nothing is called: the walk reads the router only
  app.use('/v1', v1);
  return inventoryRoutes(app).map((r) => `${r.method} ${r.path}`);
};

describe('the /v1 route records', () => {
  it('each has a handler, a response and a path of its own, and mounts as exactly the routes it declares', () => {
    for (const r of V1_ROUTES) {
      expect([r.method, r.path, typeof r.handler]).toEqual([r.method, r.path, 'function']);
      expect(Object.keys(r.responses).length).toBeGreaterThan(0);
    }
    const declared = V1_ROUTES.map((r) => `${r.method} ${r.path}`);
    expect(new Set(declared).size).toBe(declared.length);
    expect(mounted(V1_ROUTES)).toEqual(declared);
  });

  it('declares no route the rest of the policy table also names, and every record has its policy row', () => {
    const others = new Set(NON_RECORD_V1_POLICY.map((r) => `${r.method} ${r.path}`));
    expect(V1_ROUTES.filter((r) => others.has(`${r.method} ${r.path}`))).toEqual([]);
    for (const r of V1_ROUTES) expect(policyOf(r.method, r.path)?.guard).toBe(r.guard);
  });

  it('leaves out no route that reads a key, a client_secret or a user token: the others carry their own credential', () => {
    // The server refuses to start with a mounted route that has no policy row (app/http-server.ts); a row
    // outside the records can only say the route reads no key and no user token, so such a route is a record.
    const readsTheHeader = NON_RECORD_V1_POLICY.filter((r) => ['tenant_key', 'tenant_key_or_client_secret', 'client_secret', 'user_token'].includes(r.guard.kind));
    expect(readsTheHeader).toEqual([]);
  });

  it("names the bucket the meter charges for each, and a record naming another is found", () => {
    expect(bucketDisagreements()).toEqual([]);
    const create = V1_ROUTES.find((r) => r.doc.operationId === 'createSession')!;
    expect(bucketDisagreements([{ ...create, bucket: 'default' }])).toEqual(['POST /v1/verify/sessions: the record says default, the bucket table verify_create']);
  });
});
