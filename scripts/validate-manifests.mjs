// Validates every manifest in deploy/kubernetes against the Kubernetes API schemas of the
// kubernetes-models devDependency (Kubernetes 1.36), since no cluster runs here. Prints one JSON array:
// [{ file, kind, name, error }], error null when valid; exits 1 if any is invalid.
// npm run deploy:validate; test/deploy/kubernetes.test.ts runs it. (ESM: kubernetes-models 5 is ESM only.)
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

// A directory as the first argument validates that one instead (the test proves a broken manifest fails).
const dir = process.argv[2] ? path.resolve(process.argv[2]) : path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'deploy', 'kubernetes');
const results = [];
for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml').sort()) {
  for (const doc of parseAllDocuments(readFileSync(path.join(dir, file), 'utf8'))) {
    if (doc.errors.length) {
      results.push({ file, kind: null, name: null, error: doc.errors.map((e) => e.message).join('; ') });
      continue;
    }
    const object = doc.toJS();
    if (!object) continue;
    const { apiVersion, kind } = object;
    const entry = { file, kind, name: object.metadata?.name ?? null, error: null };
    try {
      // apps/v1 Deployment -> kubernetes-models/apps/v1/Deployment; v1 Service -> kubernetes-models/v1/Service
      const model = (await import(`kubernetes-models/${apiVersion}/${kind}`))[kind];
      new model(object).validate();
    } catch (err) {
      entry.error = err instanceof Error ? err.message : String(err);
    }
    results.push(entry);
  }
}
process.stdout.write(`${JSON.stringify(results, null, 1)}\n`);
process.exit(results.some((r) => r.error) ? 1 : 0);
