import pino from 'pino';
import type { Logger } from '../src/logger';

/**
 * After SIGTERM the process is gone within this long, whatever is still running (docs/operations.md,
 * "Shutdown"). Below the usual 30 s of a supervisor's grace period (Kubernetes, systemd, ECS).
 */
export const SHUTDOWN_DEADLINE_MS = 24_000;
/** How long the exit waits for the log's last lines to reach a reader; after that they are dropped. */
const LOG_FLUSH_BOUND_MS = 1_000;

type Destination = { flush(cb?: (err?: Error) => void): void; flushSync(): void };

const destinationOf = (logger: Logger): Destination | undefined => (logger as unknown as Record<symbol, Destination | undefined>)[pino.symbols.streamSym];

/**
 * Ends the process with `code`, never blocking on the log. pino flushes its asynchronous
 * destination synchronously in an `exit` handler, and sonic-boom's flushSync retries a failed write
 * until it succeeds: on EPIPE (the parent that read our stdout died) or EAGAIN (a reader that no
 * longer reads) that is forever, with the main thread parked in a sleep, so no timer can fire. That
 * is how a server whose harness died stayed up after SIGTERM, idle with exitCode 0 (issue 30).
 * Here the synchronous flush is disarmed first: lines nobody can read are lost rather than the exit.
 */
export function exitProcess(logger: Logger, code: number): never {
  const destination = destinationOf(logger);
  if (destination) destination.flushSync = () => undefined;
  process.exit(code);
}

/** Writes the buffered log lines if a reader takes them within a second, then exits (exitProcess). */
export async function flushLogAndExit(logger: Logger, code: number): Promise<never> {
  const destination = destinationOf(logger);
  if (destination) {
    await new Promise<void>((resolve) => {
      const bound = setTimeout(resolve, LOG_FLUSH_BOUND_MS);
      try {
        destination.flush(() => {
          clearTimeout(bound);
          resolve();
        });
      } catch {
        resolve(); // a destroyed destination: nothing more can be written anyway
      }
    });
  }
  return exitProcess(logger, code);
}

/**
 * Runs `close` once on SIGTERM or SIGINT and exits: 0 when it finished, 1 when it failed or
 * when SHUTDOWN_DEADLINE_MS passed first. The deadline timer is referenced on purpose: it must fire
 * even when the close waits on something that holds no handle of its own. A second signal exits at once.
 */
export function exitOnSignals(logger: Logger, close: () => Promise<void>, deadlineMs = SHUTDOWN_DEADLINE_MS): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal during shutdown; exiting now');
      exitProcess(logger, 1);
    }
    stopping = true;
    logger.info({ signal, deadline_ms: deadlineMs }, 'shutting down');
    setTimeout(() => {
      logger.error({ deadline_ms: deadlineMs }, 'shutdown did not finish in time; exiting');
      exitProcess(logger, 1);
    }, deadlineMs);
    close().then(
      () => {
        logger.info('stopped');
        return flushLogAndExit(logger, 0);
      },
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        return flushLogAndExit(logger, 1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
