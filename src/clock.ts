/**
 * The time as the code reads it. Every rule that depends on time (expiries, deadlines, rate windows, lease
 * lifetimes) takes a Clock, so that a test sets the time instead of waiting for it, and a test's verdict never
 * depends on how fast a loaded machine runs (issue 47). Production passes `systemClock`.
 */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

/** Milliseconds since the epoch on `clock`, for code that compares numbers. */
export const millisOf = (clock: Clock): number => clock().getTime();
