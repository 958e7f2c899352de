import { DomainError } from '../errors';
import { isRefusal, type SessionStatusEvent, type SessionWatchItem } from './session-status-event';
import { StatusSubscriber, type ConnectionBudget } from './status-subscriber';

const event = (seq: number, status: string, id = 'vses_a'): SessionStatusEvent => ({
  seq: String(seq),
  tenantId: 'ten_1',
  livemode: false,
  userId: null,
  session: {
    id,
    status: status as SessionStatusEvent['session']['status'],
    tier: 'T1',
    referenceId: null,
    result: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    completedAt: null,
    expiresAt: '2026-01-02T00:00:00.000Z',
    livemode: false,
    flowId: 'flow_1',
    redirectUrl: null,
    locale: 'en-US',
    metadata: {},
  },
});

const label = (item: SessionWatchItem) => (isRefusal(item) ? `refused:${item.error.code}` : `${item.seq}:${item.session.status}`);

function budget(limit = 10): ConnectionBudget & { overflows: number } {
  const b = { pending: 0, limit, revoked: false, overflows: 0, overflow: () => b.overflows++ };
  return b;
}

async function drain(sub: StatusSubscriber): Promise<string[]> {
  const out: string[] = [];
  for (;;) {
    const r = await sub.next();
    if (r.done) return out;
    out.push(label(r.value));
  }
}

describe('StatusSubscriber', () => {
  it('delivers the current state first, then held events newer than it, dropping those the read already reflects', async () => {
    const sub = new StatusSubscriber(budget(), true, () => {}, true);
    sub.offer(event(5, 'in_progress')); // committed before the read: the read shows it
    sub.offer(event(7, 'processing')); // committed after the read
    sub.begin(event(5, 'in_progress'));
    sub.offer(event(7, 'processing')); // a duplicate (e.g. Redis redelivery)
    sub.offer(event(9, 'success'));
    sub.offer(event(11, 'failed')); // after a terminal status nothing more is accepted
    expect(await drain(sub)).toEqual(['5:in_progress', '7:processing', '9:success']);
  });

  it('drops an event older than one already delivered, keeping per-session order', async () => {
    const sub = new StatusSubscriber(budget(), false, () => {});
    sub.offer(event(4, 'processing'));
    sub.offer(event(3, 'in_progress'));
    sub.offer(event(2, 'created', 'vses_b'));
    sub.complete();
    expect(await drain(sub)).toEqual(['4:processing', '2:created']);
  });

  it('reports overflow once more events are queued than the connection budget allows', () => {
    const b = budget(3);
    const sub = new StatusSubscriber(b, false, () => {});
    for (let i = 1; i <= 3; i++) sub.offer(event(i, 'created', `vses_${i}`));
    expect(b.overflows).toBe(0);
    sub.offer(event(4, 'created', 'vses_4'));
    expect(b.overflows).toBe(1);
    expect(b.pending).toBe(4);
    sub.finish();
    expect(b.pending).toBe(0);
  });

  it('shares the budget between subscriptions of one connection and releases it as events are taken', async () => {
    const b = budget(2);
    const one = new StatusSubscriber(b, false, () => {});
    const two = new StatusSubscriber(b, false, () => {});
    one.offer(event(1, 'created', 'vses_1'));
    two.offer(event(2, 'created', 'vses_2'));
    await one.next();
    two.offer(event(3, 'created', 'vses_3'));
    expect(b.overflows).toBe(0);
    two.offer(event(4, 'created', 'vses_4'));
    expect(b.overflows).toBe(1);
  });

  it('ends, without delivering what is queued, once the connection is revoked', async () => {
    const b = budget();
    let ended = 0;
    const sub = new StatusSubscriber(b, false, () => ended++);
    sub.offer(event(1, 'created'));
    b.revoked = true;
    expect(await sub.next()).toEqual({ value: undefined, done: true });
    expect(ended).toBe(1);
    expect(b.pending).toBe(0);
  });

  it('hands an event straight to a waiting reader', async () => {
    const sub = new StatusSubscriber(budget(), false, () => {});
    const pending = sub.next();
    sub.offer(event(1, 'created'));
    expect((await pending).value?.seq).toBe('1');
    sub.complete();
    expect((await sub.next()).done).toBe(true);
  });

  describe('pushing (attached)', () => {
    const pushTo = (sub: StatusSubscriber) => {
      const out: string[] = [];
      let ends = 0;
      sub.attach(
        (e) => out.push(label(e)),
        () => ends++,
      );
      return { out, ends: () => ends };
    };

    it('pushes the current state and held events first, then later ones in order, de-duplicated, ending after a terminal status', () => {
      let unregistered = 0;
      const b = budget();
      const sub = new StatusSubscriber(b, true, () => unregistered++, true);
      sub.offer(event(5, 'in_progress'));
      sub.offer(event(7, 'processing'));
      sub.begin(event(5, 'in_progress'));
      const pushed = pushTo(sub);
      expect(pushed.out).toEqual(['5:in_progress', '7:processing']);
      expect(b.pending).toBe(0); // the queue is empty; the writer charges its own writes
      sub.offer(event(7, 'processing')); // a redelivery
      sub.offer(event(6, 'in_progress')); // older than what was shown
      sub.offer(event(9, 'success'));
      sub.offer(event(11, 'failed'));
      expect(pushed.out).toEqual(['5:in_progress', '7:processing', '9:success']);
      expect(pushed.ends()).toBe(1);
      expect(unregistered).toBe(1);
    });

    it('ends on completion (shutdown) and on return, once', async () => {
      const sub = new StatusSubscriber(budget(), false, () => {});
      const pushed = pushTo(sub);
      sub.offer(event(1, 'created'));
      sub.complete();
      sub.offer(event(2, 'created', 'vses_b'));
      await sub.return();
      expect(pushed.out).toEqual(['1:created']);
      expect(pushed.ends()).toBe(1);
    });

    it('ends at once when attached after it already finished', () => {
      const sub = new StatusSubscriber(budget(), false, () => {});
      sub.finish();
      expect(pushTo(sub).ends()).toBe(1);
    });

    it('stops pushing once the connection is revoked', () => {
      const b = budget();
      const sub = new StatusSubscriber(b, false, () => {});
      const pushed = pushTo(sub);
      sub.offer(event(1, 'created'));
      b.revoked = true;
      sub.offer(event(2, 'created', 'vses_b'));
      expect(pushed.out).toEqual(['1:created']);
      expect(pushed.ends()).toBe(1);
    });

    it('pushes a refusal after what was shown and ends; later events are not pushed', () => {
      let unregistered = 0;
      const sub = new StatusSubscriber(budget(), true, () => unregistered++);
      const pushed = pushTo(sub);
      sub.offer(event(1, 'in_progress'));
      sub.refuse('vses_a', new DomainError('user_restricted', 'restricted'));
      sub.offer(event(2, 'processing'));
      sub.refuse('vses_a', new DomainError('user_restricted', 'restricted'));
      expect(pushed.out).toEqual(['1:in_progress', 'refused:user_restricted']);
      expect(pushed.ends()).toBe(1);
      expect(unregistered).toBe(1);
    });
  });

  it('yields a refusal after the queued events and then ends, when pulled', async () => {
    const b = budget();
    const sub = new StatusSubscriber(b, true, () => {});
    sub.offer(event(1, 'in_progress'));
    sub.refuse('vses_a', new DomainError('user_restricted', 'restricted'));
    sub.offer(event(2, 'processing'));
    expect(await drain(sub)).toEqual(['1:in_progress', 'refused:user_restricted']);
    expect(b.pending).toBe(0);
  });
});
