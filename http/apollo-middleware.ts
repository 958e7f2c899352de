import type { ApolloServer, BaseContext, ContextFunction } from '@apollo/server';
import { HeaderMap } from '@apollo/server';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

export type ExpressContextArgs = { req: Request; res: Response };

/**
 * Apollo Server on express, as `@as-integrations/express5` does it, minus two costs every
 * operation paid there for nothing: a legacy `url.parse` of the request line (only the query
 * string is needed) and express's ETag over every response body (GraphQL answers are POST
 * responses or personalised GETs; no cache revalidates them).
 */
export function apolloMiddleware<TContext extends BaseContext>(server: ApolloServer<TContext>, context: ContextFunction<[ExpressContextArgs], TContext>): RequestHandler {
  server.assertStarted('apolloMiddleware()');
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const headers = new HeaderMap();
      for (const [key, value] of Object.entries(req.headers)) {
        if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
      }
      const queryStart = req.url.indexOf('?');
      const response = await server.executeHTTPGraphQLRequest({
        httpGraphQLRequest: { method: req.method.toUpperCase(), headers, search: queryStart === -1 ? '' : req.url.slice(queryStart), body: req.body },
        context: () => context({ req, res }),
      });
      for (const [key, value] of response.headers) res.setHeader(key, value);
      res.statusCode = response.status ?? 200;
      if (response.body.kind === 'complete') {
        res.end(response.body.string);
        return;
      }
      for await (const chunk of response.body.asyncIterator) res.write(chunk);
      res.end();
    } catch (err) {
      next(err);
    }
  };
}
