import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { currentOpenApi } from './openapi-emit';
import { V1_ROUTES } from '../rest-adapter/v1-routes';
import { openApiPath } from '../rest-adapter/openapi-document';
import { isRawBody } from '../rest-adapter/route-record';

const ROOT = path.resolve(__dirname, '..');
const committed = fs.readFileSync(path.join(ROOT, 'openapi.yaml'), 'utf8');

describe('openapi.yaml', () => {
  it('is what the route records and openapi/ generate (run npm run openapi:emit after changing either)', () => {
    expect(currentOpenApi(ROOT)).toBe(committed);
  });

  it('documents every record with its bucket and credentials, and each operation once', () => {
    const doc = YAML.parse(committed) as { paths: Record<string, Record<string, { operationId: string; 'x-rate-limit-bucket': string; requestBody?: unknown; responses: Record<string, unknown> }>> };
    for (const r of V1_ROUTES) {
      const op = doc.paths[openApiPath(r.path)]?.[r.method.toLowerCase()];
      expect({ route: `${r.method} ${r.path}`, operationId: op?.operationId, bucket: op?.['x-rate-limit-bucket'], body: Boolean(op?.requestBody) }).toEqual({
        route: `${r.method} ${r.path}`,
        operationId: r.doc.operationId,
        bucket: r.bucket,
        // A body that may be left out (json_if_any: no request reads one) is not documented.
        body: Boolean(r.body) && !(isRawBody(r.body) && r.body.read === 'json_if_any'),
      });
    }
    // The body reader's refusals, on every record: a route that takes no body still parses JSON sent to it.
    for (const r of V1_ROUTES) {
      const statuses = Object.keys(doc.paths[openApiPath(r.path)][r.method.toLowerCase()].responses);
      const reader = r.body && !(isRawBody(r.body) && r.body.read === 'stream') ? ['400', '413', '415'] : r.body ? [] : ['400', '413'];
      expect({ route: `${r.method} ${r.path}`, missing: reader.filter((s) => !statuses.includes(s)) }).toEqual({ route: `${r.method} ${r.path}`, missing: [] });
    }
    const ids = Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
    expect(new Set(ids).size).toBe(ids.length);
  });
});
