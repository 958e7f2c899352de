import type { OutboxHandler, SessionEffects, SessionPolicies } from '../../src/sessions/session.service';

/** SessionService's policies in a test without end users: no `user_sub` names anyone, and every read passes. */
export const NO_END_USERS: SessionPolicies = {
  userOfSubject: async () => null,
  subjectOf: async () => {
    throw new Error('This test has no end users');
  },
  assertBindable: async () => undefined,
  guardRead: async (_actor, s) => s,
  listCondition: 'TRUE',
};

/** SessionService's effects in a test: the given outbox handlers run; nothing is audited or announced. */
export const quietEffects = (...outboxHandlers: OutboxHandler[]): SessionEffects => ({
  audit: async () => undefined,
  outboxHandlers,
  committed: () => undefined,
});
