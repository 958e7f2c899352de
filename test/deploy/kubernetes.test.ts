import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseAllDocuments, parse } from 'yaml';
import { CONFIG_VARIABLES } from '../../src/config';
import { SHUTDOWN_DEADLINE_MS } from '../../app/process-exit';
import { startCommand } from '../helpers/start-command';

/**
 * deploy/kubernetes and deploy/compose (docs/deploy.md): every manifest valid against the Kubernetes 1.36
 * schemas (scripts/validate-manifests.mjs, kubernetes-models' validate(); no cluster runs here), and what a
 * schema cannot say: probes on the right routes, a grace period that covers the shutdown, no secret in a
 * ConfigMap, only variables the service reads, migrations run once.
 */
const ROOT = path.resolve(__dirname, '..', '..');
const K8S = path.join(ROOT, 'deploy', 'kubernetes');
const VALIDATOR = path.join(ROOT, 'scripts', 'validate-manifests.mjs');

type Obj = Record<string, any>;
const manifests: Obj[] = fs
  .readdirSync(K8S)
  .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
  .flatMap((f) => parseAllDocuments(fs.readFileSync(path.join(K8S, f), 'utf8')).map((d) => d.toJS() as Obj))
  .filter(Boolean);
const byKind = (kind: string) => manifests.filter((m) => m.kind === kind);
const deployment = (name: string) => byKind('Deployment').find((d) => d.metadata.name === name)!;
const container = (d: Obj) => d.spec.template.spec.containers[0];

function validate(dir?: string): Promise<{ code: number; results: { file: string; kind: string; name: string; error: string | null }[] }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [VALIDATOR, ...(dir ? [dir] : [])], { timeout: 120_000 }, (err, stdout) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, results: JSON.parse(stdout) });
    });
  });
}

describe('deploy/kubernetes', () => {
  it('every manifest validates against the Kubernetes 1.36 schemas, and kustomization.yaml lists every file', async () => {
    const { code, results } = await validate();
    expect(results.filter((r) => r.error)).toEqual([]);
    expect(code).toBe(0);
    expect(results.map((r) => `${r.kind}/${r.name}`).sort()).toEqual(manifests.map((m) => `${m.kind}/${m.metadata.name}`).sort());
    const listed = (parse(fs.readFileSync(path.join(K8S, 'kustomization.yaml'), 'utf8')) as { resources: string[] }).resources.sort();
    expect(listed).toEqual([...new Set(results.map((r) => r.file))].sort());
  });

  it('the validator refuses a broken manifest (a string for replicas)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ivs-k8s-'));
    const broken = fs.readFileSync(path.join(K8S, 'gateway.yaml'), 'utf8').replace('replicas: 2', 'replicas: two');
    fs.writeFileSync(path.join(dir, 'gateway.yaml'), broken);
    const { code, results } = await validate(dir);
    expect(code).toBe(1);
    expect(results.find((r) => r.kind === 'Deployment')?.error).toMatch(/replicas/);
  });

  it('the roles run one image by command: gateway, jobs worker, check worker, the migration job', () => {
    const start = startCommand(ROOT);
    expect(container(deployment('ivs-gateway')).args).toEqual([...start.nodeFlags, start.entry]);
    expect(container(deployment('ivs-worker')).args).toEqual(['dist/app/worker.js']);
    expect(container(deployment('ivs-check-worker')).args).toEqual(['dist/app/check-worker.js']);
    // The jobs tier takes every queue but the checks and loads no engine; the check workers run the engines.
    const envOf = (name: string) => Object.fromEntries(container(deployment(name)).env.map((e: Obj) => [e.name, e.value]));
    expect(envOf('ivs-worker')).toMatchObject({ WORKER_QUEUES: 'jobs', CHECK_WORKERS: '0' });
    expect(Number(envOf('ivs-check-worker').CHECK_WORKERS)).toBeGreaterThan(0);
    const job = byKind('Job')[0];
    expect(job.spec.template.spec.containers[0].args).toEqual(['dist/app/cli.js', 'migrate', '--json']);
    const images = new Set([deployment('ivs-gateway'), deployment('ivs-worker'), deployment('ivs-check-worker'), job].map((o) => container(o).image));
    expect([...images]).toEqual(['identity-verification']);
    // The Deployments only check the schema; the Job runs the migrations.
    expect(byKind('ConfigMap')[0].data.MIGRATIONS).toBe('skip');
    expect(container(job).env).toContainEqual({ name: 'MIGRATIONS', value: 'run' });
    const gatewayEnv = Object.fromEntries(container(deployment('ivs-gateway')).env.map((e: Obj) => [e.name, e.value]));
    expect(gatewayEnv).toMatchObject({ WORKER_ENABLED: 'false', CHECK_WORKERS: '0' });
  });

  it.each(['ivs-gateway', 'ivs-worker', 'ivs-check-worker'])('%s: readiness /readyz, liveness /healthz, requests and limits, non-root, a grace period over the shutdown', (name) => {
    const d = deployment(name);
    const c = container(d);
    expect(c.readinessProbe.httpGet.path).toBe('/readyz');
    expect(c.livenessProbe.httpGet.path).toBe('/healthz');
    for (const r of ['cpu', 'memory']) {
      expect(c.resources.requests[r]).toBeDefined();
      expect(c.resources.limits[r]).toBeDefined();
    }
    expect(d.spec.template.spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001 });
    const preStop = c.lifecycle?.preStop?.sleep?.seconds ?? 0;
    expect(d.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThan(preStop + SHUTDOWN_DEADLINE_MS / 1000);
    // A PodDisruptionBudget and an autoscaler for each role.
    const selects = (o: Obj) => JSON.stringify(o.spec.selector.matchLabels) === JSON.stringify(d.spec.selector.matchLabels);
    expect(byKind('PodDisruptionBudget').filter(selects)).toHaveLength(1);
    expect(byKind('HorizontalPodAutoscaler').filter((h) => h.spec.scaleTargetRef.name === name)).toHaveLength(1);
  });

  it('gateways scale on CPU, workers on the queue metrics the service exports', () => {
    const hpa = (name: string) => byKind('HorizontalPodAutoscaler').find((h) => h.spec.scaleTargetRef.name === name)!;
    expect(hpa('ivs-gateway').spec.metrics).toEqual([expect.objectContaining({ type: 'Resource', resource: expect.objectContaining({ name: 'cpu' }) })]);
    const exported = fs.readFileSync(path.join(ROOT, 'src', 'metrics', 'prometheus-metrics.ts'), 'utf8');
    const names = hpa('ivs-check-worker').spec.metrics.map((m: Obj) => m.external.metric.name as string);
    expect(names).toEqual(['ivs_job_queue_depth', 'ivs_job_queue_oldest_age_seconds']);
    // The check workers count the run-checks queue; the jobs tier every queue but it.
    expect(hpa('ivs-check-worker').spec.metrics.map((m: Obj) => m.external.metric.selector)).toEqual([{ matchLabels: { queue: 'run-checks' } }, { matchLabels: { queue: 'run-checks' } }]);
    expect(hpa('ivs-worker').spec.metrics).toEqual([
      expect.objectContaining({ external: expect.objectContaining({ metric: { name: 'ivs_job_queue_oldest_age_seconds', selector: { matchExpressions: [{ key: 'queue', operator: 'NotIn', values: ['run-checks'] }] } } }) }),
    ]);
    for (const n of names) expect(exported).toContain(`\${PREFIX}${n.replace(/^ivs_/, '')}`);
  });

  it('no secret in a ConfigMap; the keys and credentials are in the Secret; every variable is one the service reads', () => {
    const config = byKind('ConfigMap')[0].data as Record<string, string>;
    const secret = byKind('Secret')[0].stringData as Record<string, string>;
    const SECRET_NAMES = /KEY|SECRET|PASSWORD|TOKEN|_URL$|GUID/;
    const secretLooking = Object.keys(config).filter((k) => SECRET_NAMES.test(k) && !/^(PUBLIC|STAGING)_BASE_URL$/.test(k));
    expect(secretLooking).toEqual([]);
    expect(Object.keys(secret)).toEqual(expect.arrayContaining(['DATABASE_URL', 'DATABASE_MIGRATION_URL', 'REDIS_URL', 'VAULT_MASTER_KEY', 'WEBHOOK_SECRET_KEY', 'USER_DATA_KEY', 'AUDIT_SIGNING_KEY']));
    const envNames = [...Object.keys(config), ...Object.keys(secret), ...[deployment('ivs-gateway'), deployment('ivs-worker'), deployment('ivs-check-worker'), byKind('Job')[0]].flatMap((o) => container(o).env.map((e: Obj) => e.name as string))];
    const unknown = envNames.filter((n) => !CONFIG_VARIABLES.includes(n) && !/^AWS_(ACCESS_KEY_ID|SECRET_ACCESS_KEY)$/.test(n));
    expect(unknown).toEqual([]);
  });
});

describe('deploy/compose/compose.yaml', () => {
  const compose = parse(fs.readFileSync(path.join(ROOT, 'deploy', 'compose', 'compose.yaml'), 'utf8'), { merge: true }) as { services: Record<string, Obj> };
  const s = compose.services;

  it('two gateways, one worker, one check worker, PostgreSQL, Redis and an S3 store; migrations once, by a one-shot service', () => {
    expect(Object.keys(s).sort()).toEqual(['api-1', 'api-2', 'bucket', 'check-worker', 'migrate', 'minio', 'postgres', 'redis', 'worker']);
    expect(s.migrate.command).toEqual(['dist/app/cli.js', 'migrate', '--json']);
    for (const name of ['api-1', 'api-2', 'worker', 'check-worker']) {
      expect(s[name].environment.MIGRATIONS).toBe('skip');
      expect(s[name].depends_on.migrate).toEqual({ condition: 'service_completed_successfully' });
    }
    for (const name of ['api-1', 'api-2']) expect(s[name].environment).toMatchObject({ WORKER_ENABLED: 'false', CHECK_WORKERS: '0' });
    expect(s.worker.command).toEqual(['dist/app/worker.js']);
    expect(s.worker.environment).toMatchObject({ WORKER_QUEUES: 'jobs', CHECK_WORKERS: '0' });
    expect(s['check-worker'].command).toEqual(['dist/app/check-worker.js']);
    expect(s['api-1'].ports).not.toEqual(s['api-2'].ports);
  });

  it('sets only variables the service reads', () => {
    const names = ['api-1', 'api-2', 'worker', 'check-worker', 'migrate'].flatMap((n) => Object.keys(s[n].environment));
    expect(names.filter((n) => !CONFIG_VARIABLES.includes(n) && !/^AWS_(ACCESS_KEY_ID|SECRET_ACCESS_KEY)$/.test(n))).toEqual([]);
  });
});
