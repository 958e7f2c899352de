import { spawn, type ChildProcess } from 'node:child_process';
import { sendWebhook } from './webhook.sender';

/**
 * A receiver in another process: answers 200 at once, and prints when it answered request /<n> (ms since the epoch).
 * It closes a kept-alive connection after 3 s idle (it tells the client so; node's client reuses the connection for 2 s).
 */
const RECEIVER = `
const server = require('node:http').createServer({ keepAliveTimeout: 3000 }, (req, res) => {
  req.resume();
  req.on('end', () => res.end('ok', () => console.log('answered ' + req.url.slice(1) + ' ' + Date.now())));
});
server.listen(0, '127.0.0.1', () => console.log('port ' + server.address().port));
`;

/** Blocks this thread, its event loop included, for `ms` without spinning. */
const stall = (ms: number): void => void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

describe('sendWebhook', () => {
  let receiver: ChildProcess;
  let port: number;
  const answers = new Map<number, number>();

  beforeAll(async () => {
    receiver = spawn(process.execPath, ['-e', RECEIVER], { stdio: ['ignore', 'pipe', 'inherit'] });
    port = await new Promise<number>((resolve) =>
      receiver.stdout!.on('data', (d: Buffer) => {
        for (const [, n, at] of String(d).matchAll(/answered (\d+) (\d+)/g)) answers.set(Number(n), Number(at));
        const listening = /port (\d+)/.exec(String(d));
        if (listening) resolve(Number(listening[1]));
      }),
    );
  });
  afterAll(() => {
    receiver?.kill();
  });

  it('counts an answer that came within the deadline while its event loop stalled past it (a loaded machine)', async () => {
    // The stall must begin before the answer comes and end after the deadline; a slow machine may answer after a
    // short stall, so the stall grows until it covers the answer (a ceiling bounds a hang).
    for (let n = 1, stallMs = 600; ; n++, stallMs *= 2) {
      expect(stallMs).toBeLessThan(60_000);
      const timeoutMs = stallMs / 2;
      const sent = sendWebhook({ target: { url: new URL(`http://127.0.0.1:${port}/${n}`), address: '127.0.0.1', family: 4 }, body: '{}', headers: {}, timeoutMs, maxBodyBytes: 1024 });
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
      while (!answers.has(n) && Date.now() - stalled.to < 60_000) await new Promise((resolve) => setTimeout(resolve, 10)); // its line about the answer
      const answeredAt = answers.get(n)!;
      if (answeredAt < stalled.from || answeredAt > stalled.from + timeoutMs) continue; // not while stalled: try again
      expect(r).toMatchObject({ statusCode: 200, error: null, body: 'ok' });
      return;
    }
  });

  it('sends again on a new connection when the kept-alive one was closed by the receiver while this process was too busy to notice', async () => {
    const send = (n: number) =>
      sendWebhook({ target: { url: new URL(`http://127.0.0.1:${port}/${n}`), address: '127.0.0.1', family: 4 }, body: '{}', headers: {}, timeoutMs: 30_000, maxBodyBytes: 1024 });
    expect(await send(101)).toMatchObject({ statusCode: 200, body: 'ok' }); // leaves its socket to keep-alive
    // The receiver closes the idle socket after 3 s; this thread is blocked past that, so the close is unread and
    // the next POST goes out on the dead socket, which the receiver resets.
    stall(4_000);
    expect(await send(102)).toMatchObject({ statusCode: 200, error: null, body: 'ok' });
  });
});
