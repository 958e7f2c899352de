import { spawn, type ChildProcess } from 'node:child_process';
import { sendWebhook } from './webhook.sender';

/**
 * A receiver in another process: answers request /<n>/<ms> with 200 after <ms> (0 if absent), and prints when it
 * answered (ms since the epoch). It closes a kept-alive connection after the idle time given as its argument.
 */
const RECEIVER = `
const server = require('node:http').createServer({ keepAliveTimeout: Number(process.argv[1]) }, (req, res) => {
  const [n, delay] = req.url.slice(1).split('/');
  req.resume();
  req.on('end', () => setTimeout(() => res.end('ok', () => console.log('answered ' + n + ' ' + Date.now())), Number(delay ?? 0)));
});
server.listen(0, '127.0.0.1', () => console.log('port ' + server.address().port));
`;

/** Blocks this thread, its event loop included, for `ms` without spinning. */
const stall = (ms: number): void => void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

type Receiver = { process: ChildProcess; port: number; answers: Map<number, number> };

async function startReceiver(keepAliveMs: number): Promise<Receiver> {
  const child = spawn(process.execPath, ['-e', RECEIVER, String(keepAliveMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const answers = new Map<number, number>();
  const port = await new Promise<number>((resolve) =>
    child.stdout!.on('data', (d: Buffer) => {
      for (const [, n, at] of String(d).matchAll(/answered (\d+) (\d+)/g)) answers.set(Number(n), Number(at));
      const listening = /port (\d+)/.exec(String(d));
      if (listening) resolve(Number(listening[1]));
    }),
  );
  return { process: child, port, answers };
}

describe('sendWebhook', () => {
  // One that keeps idle connections for 10 minutes: the stall test's stalls grow, and must not outlast its connection.
  let patient: Receiver;
  // One that closes them after 3 s, as many servers do (node's client then reuses one for 2 s).
  let brisk: Receiver;

  beforeAll(async () => {
    [patient, brisk] = await Promise.all([startReceiver(600_000), startReceiver(3_000)]);
  });
  afterAll(() => {
    patient?.process.kill();
    brisk?.process.kill();
  });

  it('counts an answer that came within the deadline while its event loop stalled past it (a loaded machine)', async () => {
    // The answer must come while this process is stalled and before the deadline, and the stall must end after the
    // deadline: the receiver answers a quarter of the stall after the request, the deadline is at half of it. A slow
    // machine may send the request late or answer late, so the stall grows until the answer falls inside it (a
    // ceiling bounds a hang).
    for (let n = 1, stallMs = 600; ; n++, stallMs *= 2) {
      expect(stallMs).toBeLessThan(60_000);
      const timeoutMs = stallMs / 2;
      const url = new URL(`http://127.0.0.1:${patient.port}/${n}/${stallMs / 4}`);
      const sent = sendWebhook({ target: { url, address: '127.0.0.1', family: 4 }, body: '{}', headers: {}, timeoutMs, maxBodyBytes: 1024 });
      let stalled = { from: 0, to: 0 };
      // In the loop's check phase, as an I/O callback's work would be: its next turn runs the timers before reading sockets.
      await new Promise((resolve) => setTimeout(resolve, 5)); // the request written
      await new Promise<void>((resolve) =>
        setImmediate(() => {
          const from = Date.now();
          stall(stallMs);
          stalled = { from, to: Date.now() };
          resolve();
        }),
      );
      const r = await sent;
      while (!patient.answers.has(n) && Date.now() - stalled.to < 60_000) await new Promise((resolve) => setTimeout(resolve, 10)); // its line about the answer
      const answeredAt = patient.answers.get(n)!;
      if (answeredAt < stalled.from || answeredAt > stalled.from + timeoutMs) continue; // not while stalled: try again
      expect(r).toMatchObject({ statusCode: 200, error: null, body: 'ok' });
      return;
    }
  });

  it('sends again on a new connection when the kept-alive one was closed by the receiver while this process was too busy to notice', async () => {
    const send = (n: number) =>
      sendWebhook({ target: { url: new URL(`http://127.0.0.1:${brisk.port}/${n}`), address: '127.0.0.1', family: 4 }, body: '{}', headers: {}, timeoutMs: 30_000, maxBodyBytes: 1024 });
    expect(await send(101)).toMatchObject({ statusCode: 200, body: 'ok' }); // leaves its socket to keep-alive
    await new Promise((resolve) => setTimeout(resolve, 50)); // the socket back in the client's pool of free ones
    // The receiver closes the idle socket after 3 s; this thread is blocked past that, so the close is unread and
    // the next POST goes out on the dead socket, which the receiver resets.
    stall(4_000);
    expect(await send(102)).toMatchObject({ statusCode: 200, error: null, body: 'ok' });
  });
});
