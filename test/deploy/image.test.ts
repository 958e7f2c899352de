import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startCommand } from '../helpers/start-command';

/**
 * Builds the Containerfile with podman and checks the image: the user, the entrypoints of the three roles,
 * the healthcheck, the size, what is inside (dist/, production dependencies, the models) and what is not
 * (devDependencies, npm). Running a container is not possible in this sandbox (crun cannot set rlimits), so
 * nothing is started here; docs/deploy.md says how the image was run by hand.
 *
 * Skipped, saying why, unless IVS_IMAGE_TEST=1 (a fresh build takes about 10 minutes: npm ci of every
 * dependency, then tsc), podman is installed and the base image exists (IVS_NODE_IMAGE, default the one
 * scripts/container-base.sh makes; an operator with a registry sets docker.io/library/node:22-bookworm-slim).
 */
const ROOT = path.resolve(__dirname, '..', '..');
const IMAGE = 'localhost/identity-verification:test';
const BASE = process.env.IVS_NODE_IMAGE ?? 'localhost/ivs-node:22-bookworm';

function skipReason(): string | null {
  if (process.env.IVS_IMAGE_TEST !== '1') return 'set IVS_IMAGE_TEST=1 to build the image (about 10 minutes)';
  try {
    execFileSync('podman', ['--version'], { stdio: 'ignore' });
  } catch {
    return 'podman is not installed (apt-get install -y podman buildah)';
  }
  try {
    execFileSync('podman', ['image', 'exists', BASE], { stdio: 'ignore' });
  } catch {
    return `the base image ${BASE} is missing: run sh scripts/container-base.sh (or set IVS_NODE_IMAGE)`;
  }
  return null;
}

const reason = skipReason();
if (reason) {
  console.warn(`test/deploy/image.test.ts skipped: ${reason}`);
}
const describeImage = reason ? describe.skip : describe;

function podman(args: string[], timeoutMs = 120_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('podman', args, { cwd: ROOT, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => (err ? reject(new Error(`podman ${args[0]}: ${stderr || err.message}`)) : resolve(stdout)));
  });
}

describeImage('the container image (Containerfile)', () => {
  // podman's inspect JSON keeps the healthcheck beside Config, not in it (the OCI config has no field for it).
  type Inspect = { Size: number; Healthcheck?: { Test: string[] }; Config: { User: string; Entrypoint: string[]; Cmd: string[]; Env: string[]; ExposedPorts: Record<string, unknown> } };
  let image: Inspect;
  let root: string;
  beforeAll(async () => {
    // A proxy that re-signs TLS: its CA goes in as a build secret, in no layer (the Containerfile's npm ci step).
    const ca = process.env.NODE_EXTRA_CA_CERTS;
    const secret = ca && fs.existsSync(ca) ? ['--secret', `id=build-ca,src=${ca}`] : [];
    await podman(['build', '--format', 'docker', '--isolation=chroot', ...secret, '--build-arg', `NODE_IMAGE=${BASE}`, '-t', IMAGE, '.'], 30 * 60_000);
    [image] = JSON.parse(await podman(['image', 'inspect', IMAGE])) as Inspect[];
    root = (await podman(['image', 'mount', IMAGE])).trim();
  }, 31 * 60_000);
  afterAll(async () => {
    if (root) await podman(['image', 'umount', IMAGE]).catch(() => undefined);
  });

  it('runs as the non-root user 10001, node as the entrypoint, the gateway by default, /readyz as its healthcheck', () => {
    expect(image.Config.User).toBe('10001:10001');
    expect(image.Config.Entrypoint).toEqual(['node']);
    // The gateway as `npm start` runs it: the same node flags (the heap's floor), the same entry point.
    const start = startCommand(ROOT);
    expect(image.Config.Cmd).toEqual([...start.nodeFlags, start.entry]);
    expect(image.Healthcheck?.Test).toEqual(['CMD', 'node', 'dist/app/healthcheck.js']);
    expect(image.Config.Env).toEqual(expect.arrayContaining(['NODE_ENV=production', 'DATA_DIR=/var/lib/ivs', 'HOME=/var/lib/ivs']));
    expect(Object.keys(image.Config.ExposedPorts)).toEqual(['4000/tcp']);
    expect(fs.readFileSync(path.join(root, 'etc', 'passwd'), 'utf8')).toMatch(/^ivs:x:10001:10001:/m);
  });

  it('holds the three roles\' entrypoints, the check engines\' thread and models, and Node 22', () => {
    for (const f of ['dist/app/main.js', 'dist/app/worker.js', 'dist/app/check-worker.js', 'dist/app/cli.js', 'dist/app/healthcheck.js', 'dist/src/checks/check.worker.js', 'assets/ocr/mrz.traineddata', 'node_modules/@vladmandic/human/models/faceres.json', 'openapi.yaml']) {
      expect(fs.existsSync(path.join(root, 'app', f))).toBe(true);
    }
    expect(execFileSync(path.join(root, 'usr', 'local', 'bin', 'node'), ['--version']).toString()).toMatch(/^v22\./);
  });

  it('holds no devDependency, no npm, no test or bench build, and stays under 600 MB', () => {
    for (const f of ['node_modules/typescript', 'node_modules/jest', 'node_modules/@sparticuz/chromium', 'node_modules/playwright-core', 'node_modules/s3rver', 'dist/bench', 'dist/test', 'src', 'test']) {
      expect([f, fs.existsSync(path.join(root, 'app', f))]).toEqual([f, false]);
    }
    expect(fs.existsSync(path.join(root, 'usr', 'local', 'bin', 'npm'))).toBe(false);
    expect(image.Size).toBeLessThan(600 * 1000 * 1000);
  });
});
