import express from 'express';
import { policyOf } from '../rest-adapter/v1-routes';
import { inventoryRoutes } from './route-inventory';

describe('route inventory', () => {
  it('lists routes of nested routers with their mount paths, and handlers mounted with use that end the request', () => {
    const app = express();
    const v1 = express.Router();
    v1.use((_req, _res, next) => next()); // middleware: not an endpoint
    v1.get('/verify/sessions/:id', (_req, res) => void res.end());
    v1.post('/verify/sessions', (_req, res) => void res.end());
    app.use('/v1', v1);
    const hosted = express.Router();
    hosted.put('/sessions/:id/identity', (_req, res) => void res.end());
    app.use('/v1/hosted', hosted);
    app.use('/v1/oidc', (_req: express.Request, res: express.Response) => void res.end());
    app.use((_req: express.Request, res: express.Response) => void res.end());
    expect(inventoryRoutes(app)).toEqual([
      { method: 'GET', path: '/v1/verify/sessions/:id' },
      { method: 'POST', path: '/v1/verify/sessions' },
      { method: 'PUT', path: '/v1/hosted/sessions/:id/identity' },
      { method: 'ALL', path: '/v1/oidc' },
      { method: 'ALL', path: '/' },
    ]);
  });

  it('finds a route the policy does not name, which stops the server at start', () => {
    const app = express();
    const v1 = express.Router();
    v1.get('/verify/sessions/:id', (_req, res) => void res.end());
    v1.delete('/verify/sessions/:id', (_req, res) => void res.end());
    app.use('/v1', v1);
    expect(inventoryRoutes(app).filter((r) => !policyOf(r.method, r.path))).toEqual([{ method: 'DELETE', path: '/v1/verify/sessions/:id' }]);
  });
});
