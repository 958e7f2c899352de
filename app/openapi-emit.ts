import fs from 'node:fs';
import path from 'node:path';
import { openApiDocument } from '../rest-adapter/openapi-document';
import { V1_ROUTES } from '../rest-adapter/v1-routes';

const ROOT = path.resolve(__dirname, '..', '..');

/** openapi.yaml as the route records and the authored parts (openapi/base.yaml, openapi/routes.yaml) make it. */
export function currentOpenApi(root = ROOT): string {
  const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
  return openApiDocument(V1_ROUTES, read('openapi/base.yaml'), read('openapi/routes.yaml'));
}

/** Prints the document; `--write` updates openapi.yaml, `--check` exits 1 when the committed file has drifted. */
if (require.main === module) {
  const file = path.join(ROOT, 'openapi.yaml');
  const doc = currentOpenApi();
  if (process.argv.includes('--write')) {
    fs.writeFileSync(file, doc);
  } else if (process.argv.includes('--check')) {
    if (!fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== doc) {
      process.stderr.write('openapi.yaml has drifted from the route records and openapi/: run `npm run openapi:emit`\n');
      process.exit(1);
    }
  } else {
    process.stdout.write(doc);
  }
}
