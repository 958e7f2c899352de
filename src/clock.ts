/**
 * The time as the code reads it. Every rule that depends on time (expiries, deadlines, rate windows, lease
 * lifetimes) takes a Clock, so that a test sets the time instead of waiting for it, and a test's verdict never
 * depends on how fast a loaded machine runs (issue 47). Production passes `systemClock`.
 */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

/**
 * The same time in milliseconds since the epoch, for the per-request hot path (the rate window reads it several
 * times a request, and a Date each time is an allocation there for nothing). `systemMillis` is Date.now.
 */
export type MillisClock = () => number;

export const systemMillis: MillisClock = Date.now;
