// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- tsconfig.build.json compiles this file for bench:s3 but excludes test/, so the declaration is not picked up by itself
/// <reference path="./s3rver.d.ts" />
import S3rver from 's3rver';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';

/**
 * The S3-compatible server of the tests and the S3 benchmark: s3rver (an npm devDependency, so it
 * runs offline), keeping objects in a temporary directory. What it does not imitate of S3 is in
 * docs/operations.md, "Object storage".
 */
export type LocalS3 = {
  endpoint: string;
  bucket: string;
  /** The environment a server (or an S3 client) needs to use it: VAULT_S3_*, region and credentials. */
  env: Record<string, string>;
  /** s3rver's own process, when it runs in one (startLocalS3Process): a benchmark reads its CPU. */
  pid?: number;
  close(): Promise<void>;
};

/** s3rver's one account; it refuses other access key ids. */
export const LOCAL_S3_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;

function envFor(endpoint: string, bucket: string): Record<string, string> {
  return {
    VAULT_S3_BUCKET: bucket,
    VAULT_S3_ENDPOINT: endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: LOCAL_S3_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_S3_CREDENTIALS.secretAccessKey,
  };
}

/** Starts s3rver in this process on a free loopback port, with `bucket` created. */
export async function startLocalS3(bucket = 'vault'): Promise<LocalS3> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'ivs-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    env: envFor(endpoint, bucket),
    close: async () => {
      const closed = server.close();
      // The SDK keeps its sockets alive; close() alone would wait for them to time out.
      server.httpServer.closeAllConnections();
      await closed;
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}

/**
 * Starts s3rver as its own process (the benchmark: the server's CPU then is not the client's event
 * loop's, as with a real bucket). Ends with `close()`, or when this process exits.
 */
export async function startLocalS3Process(bucket = 'vault'): Promise<LocalS3> {
  const proc = spawn(process.execPath, [__filename, bucket], { stdio: ['ignore', 'pipe', 'inherit'] });
  const killOnExit = () => proc.kill('SIGKILL');
  process.once('exit', killOnExit);
  const endpoint = await new Promise<string>((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`s3rver exited with ${code} before listening`)));
    readline.createInterface({ input: proc.stdout! }).once('line', (line) => resolve((JSON.parse(line) as { endpoint: string }).endpoint));
  });
  return {
    endpoint,
    bucket,
    env: envFor(endpoint, bucket),
    pid: proc.pid,
    close: async () => {
      process.off('exit', killOnExit);
      if (proc.exitCode !== null) return;
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      await exited;
    },
  };
}

if (require.main === module) {
  void startLocalS3(process.argv[2]).then((s3) => {
    process.stdout.write(`${JSON.stringify({ endpoint: s3.endpoint })}\n`);
    process.once('SIGTERM', () => void s3.close().then(() => process.exit(0)));
  });
}
