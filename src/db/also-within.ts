import type { EntityManager } from 'typeorm';

/**
 * Writes a caller adds to a use case's own transaction, given the use case's result: they commit or
 * roll back with the change (the console's `console.settings_changed` entry, src/console/console-settings.ts).
 */
export type AlsoWithin<T> = (m: EntityManager, result: T) => Promise<unknown>;
