import { spawn } from 'node:child_process';
import net from 'node:net';
import { DeadlineError, withinDeadline } from './deadline';

/**
 * A server in a process of its own (as Redis is), answering every line after `delayMs` on a loopback socket,
 * and a client here that asks it one question at a time.
 */
async function answeringServer(delayMs = 0): Promise<{ ask(line: string): Promise<string>; close(): Promise<void> }> {
  const code = `require('node:net').createServer((s) => s.on('data', (d) => setTimeout(() => s.write('answer to ' + d), ${delayMs}))).listen(0, '127.0.0.1', function () { console.log(this.address().port); });`;
  const proc = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = Number(await new Promise<string>((r) => proc.stdout.once('data', (d: Buffer) => r(d.toString()))));
  const client = net.connect(port, '127.0.0.1');
  await new Promise((r) => client.once('connect', r));
  return {
    ask: (line) =>
      new Promise<string>((resolve) => {
        client.once('data', (d) => resolve(d.toString()));
        client.write(line);
      }),
    close: async () => {
      client.destroy();
      proc.kill();
    },
  };
}

/** Holds the event loop, as a long collection or a CPU taken by other processes does. */
function stall(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // busy
  }
}

describe('withinDeadline', () => {
  it('gives up on work that does not answer in time', async () => {
    const started = Date.now();
    await expect(withinDeadline(new Promise(() => undefined), 50)).rejects.toBeInstanceOf(DeadlineError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(49);
  });

  it('passes on an answer or a failure that comes in time', async () => {
    await expect(withinDeadline(Promise.resolve(7), 50)).resolves.toBe(7);
    await expect(withinDeadline(Promise.reject(new Error('refused')), 50)).rejects.toThrow('refused');
  });

  it('takes an answer that arrived while the process was stalled past the deadline', async () => {
    const pair = await answeringServer();
    try {
      // A plain timeout in the same situation calls the answer lost: Node runs due timers before it reads sockets.
      const answer = pair.ask('plain');
      const plain = Promise.race([answer, new Promise((_, reject) => setTimeout(() => reject(new Error('timed out')), 100))]);
      stall(300);
      await expect(plain).rejects.toThrow('timed out');
      expect(await answer).toBe('answer to plain'); // it had come, and is read only now

      const judged = withinDeadline(pair.ask('judged'), 100);
      stall(300);
      await expect(judged).resolves.toBe('answer to judged');
    } finally {
      await pair.close();
    }
  });

  it('counts only the time the process ran: a stall does not use up the wait for an answer still coming', async () => {
    const pair = await answeringServer(500);
    try {
      const started = Date.now();
      const judged = withinDeadline(pair.ask('slow'), 300);
      stall(400); // counts as 100 ms of waiting; the answer comes 100 ms after the stall
      await expect(judged).resolves.toBe('answer to slow');
      expect(Date.now() - started).toBeGreaterThanOrEqual(490);
    } finally {
      await pair.close();
    }
  });
});
