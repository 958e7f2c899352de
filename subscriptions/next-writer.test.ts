import { writeNext } from './next-writer';

/** A socket whose writes complete only when the test says so, like one whose reader stopped reading. */
function stalledSocket() {
  const s = {
    OPEN: 1 as const,
    readyState: 1 as 0 | 1 | 2 | 3,
    sent: [] as string[],
    unfinished: [] as (() => void)[],
    send: (message: string, cb?: (err?: Error) => void) => {
      s.sent.push(message);
      s.unfinished.push(() => cb?.());
    },
  };
  return s;
}

const budget = (limit: number) => {
  const b = { pending: 0, limit, revoked: false, overflows: 0, overflow: () => b.overflows++ };
  return b;
};

describe('writeNext', () => {
  it('closes a connection whose unfinished writes exceed the budget, and releases the budget as writes complete', () => {
    const socket = stalledSocket();
    const b = budget(3);
    for (let i = 1; i <= 3; i++) writeNext(socket as never, b, `m${i}`);
    expect(b.overflows).toBe(0);
    writeNext(socket as never, b, 'm4');
    expect(b.overflows).toBe(1);
    expect(socket.sent).toEqual(['m1', 'm2', 'm3']);
    for (const done of socket.unfinished.splice(0)) done();
    expect(b.pending).toBe(0);
    writeNext(socket as never, b, 'm5');
    expect(socket.sent).toEqual(['m1', 'm2', 'm3', 'm5']);
  });

  it('writes nothing to a closing socket or for a revoked credential', () => {
    const socket = stalledSocket();
    const b = budget(10);
    socket.readyState = 2;
    writeNext(socket as never, b, 'closing');
    socket.readyState = 1;
    b.revoked = true;
    writeNext(socket as never, b, 'revoked');
    expect(socket.sent).toEqual([]);
    expect(b.pending).toBe(0);
  });
});
