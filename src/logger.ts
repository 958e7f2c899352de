import pino, { Logger } from 'pino';

/** How long a log line may wait in the buffer before it is written. */
const LOG_FLUSH_MS = 200;

/**
 * JSON logs; credentials are redacted wherever they could appear. Lines go to stdout through
 * pino's asynchronous destination, buffered up to 4 KiB or 200 ms: one write per request was a
 * measurable share of a poll's CPU (docs/benchmarks.md, "Session reads"). pino flushes what is pending when the
 * process exits; a kill -9 loses at most the last 200 ms of lines.
 */
export function createLogger(level: string): Logger {
  const destination = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  setInterval(() => destination.flush(), LOG_FLUSH_MS).unref();
  return pino({
    level,
    base: undefined,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'headers.authorization',
        '*.apiKey',
        '*.clientSecret',
        '*.client_secret',
        '*.signing_secret',
        '*.password',
      ],
      censor: '[redacted]',
    },
  }, destination);
}

/**
 * A logger for lines whose fields are fixed and carry no credential (the per-request access line):
 * it writes to the same destination without the redaction pass, which copies every logged object
 * and cost more than the rest of the line on a session read.
 */
export function unredactedSibling(logger: Logger): Logger {
  const destination = (logger as unknown as Record<symbol, pino.DestinationStream>)[pino.symbols.streamSym];
  return pino({ level: logger.level, base: undefined }, destination);
}

export type { Logger };
