#!/usr/bin/env node
// Types of the typed client (clients/typescript) generated from openapi.yaml with openapi-typescript.
//   node scripts/client-types.mjs           write clients/typescript/src/generated/openapi.d.ts
//   node scripts/client-types.mjs --check   exit 1 when the committed file differs from what openapi.yaml generates
// --spec and --out name other files (the drift check's own test uses them). Runs offline: no $ref leaves the file.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    check: { type: 'boolean', default: false },
    spec: { type: 'string', default: path.join(root, 'openapi.yaml') },
    out: { type: 'string', default: path.join(root, 'clients/typescript/src/generated/openapi.d.ts') },
  },
});

const HEADER = '// Generated from openapi.yaml by `npm run client:generate` (openapi-typescript). Do not edit: CI fails when it drifts.\n';
const ast = await openapiTS(pathToFileURL(path.resolve(values.spec)), { silent: true });
const generated = HEADER + astToString(ast);
const rel = path.relative(root, values.out);

if (values.check) {
  const committed = fs.existsSync(values.out) ? fs.readFileSync(values.out, 'utf8') : '';
  if (committed !== generated) {
    const a = committed.split('\n');
    const b = generated.split('\n');
    let line = 0;
    while (line < Math.max(a.length, b.length) && a[line] === b[line]) line++;
    console.error(`${rel} is out of date with ${path.relative(root, values.spec)} (first difference at line ${line + 1}).`);
    console.error(`  committed: ${JSON.stringify(a[line] ?? '<end of file>')}`);
    console.error(`  generated: ${JSON.stringify(b[line] ?? '<end of file>')}`);
    console.error('Run `npm run client:generate` and commit the result.');
    process.exit(1);
  }
  console.log(`${rel} matches ${path.relative(root, values.spec)}`);
} else {
  fs.mkdirSync(path.dirname(values.out), { recursive: true });
  fs.writeFileSync(values.out, generated);
  console.log(`wrote ${rel}`);
}
