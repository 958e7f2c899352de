import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The drift check of the client's types (issue 28: "a check that fails the build when the generated types
 * drift from /openapi.yaml"): `npm run client:check` regenerates them from openapi.yaml with
 * openapi-typescript, offline, and compares with the committed src/generated/openapi.d.ts.
 */
const ROOT = path.resolve(__dirname, '..', '..', '..');
const SCRIPT = path.join(ROOT, 'scripts', 'client-types.mjs');

function check(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [SCRIPT, '--check', ...args], { cwd: ROOT, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('the generated client types', () => {
  it('equal what openapi.yaml generates (run `npm run client:generate` after changing openapi.yaml)', async () => {
    const r = await check();
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('fail the check, naming the first differing line, when openapi.yaml changes and the types are not regenerated', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'client-drift-'));
    const spec = path.join(dir, 'openapi.yaml');
    // A new field on a response: the kind of additive change D10 allows, which the client must pick up.
    const original = fs.readFileSync(path.join(ROOT, 'openapi.yaml'), 'utf8');
    const at = original.indexOf('properties:\n', original.indexOf('\n    Retention:\n')) + 'properties:\n'.length;
    const changed = `${original.slice(0, at)}        drift_probe:\n          type: string\n${original.slice(at)}`;
    expect(changed).toContain('drift_probe');
    fs.writeFileSync(spec, changed);
    const r = await check('--spec', spec);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/clients\/typescript\/src\/generated\/openapi\.d\.ts is out of date/);
    expect(r.stderr).toMatch(/drift_probe/);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
