import type { SessionStatusEvent } from './session-status-event';

/** Topics of the instance-to-instance bus. Payloads are JSON-safe so Redis fan-out and the in-process bus behave alike. */
export enum Topic {
  /** Every committed session status change of every tenant; each instance routes it to its own subscribers. */
  SessionStatus = 'ivs:session-status',
}

export type Topics = {
  [Topic.SessionStatus]: [SessionStatusEvent];
};
