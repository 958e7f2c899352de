// Rewrites the generated section of docs/security.md from the authorization policy table
// (src/auth/authorization-policy.ts). `--check` only says whether the committed doc is current.
const fs = require('node:fs');
const path = require('node:path');
const { renderAuthorizationPolicyDoc, withGeneratedSection } = require('../dist/src/auth/authorization-policy.doc.js');
// The rows: the /v1 route records' (rest-adapter/v1-routes.ts) and the table's others.
const { ALL_ROUTE_POLICY } = require('../dist/rest-adapter/v1-routes.js');

const file = path.join(__dirname, '..', 'docs', 'security.md');
const current = fs.readFileSync(file, 'utf8');
const next = withGeneratedSection(current, renderAuthorizationPolicyDoc(ALL_ROUTE_POLICY));
if (process.argv.includes('--check')) {
  if (next !== current) {
    process.stderr.write('docs/security.md differs from the authorization policy: run npm run docs:security\n');
    process.exit(1);
  }
} else if (next !== current) {
  fs.writeFileSync(file, next);
  process.stdout.write('docs/security.md: authorization policy rewritten\n');
}
