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
  flushAfterWrites(destination);
  return pino({
    level,
    base: undefined,
    serializers: { err: loggableError },
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
 * Flushes the buffer LOG_FLUSH_MS after lines were written into it, not on a fixed interval: an idle
 * server writes no lines, and the interval's flushes of nothing were a write(2) five times a second
 * (issue 44, idle CPU). After a window with lines it flushes once more a window later, because a flush
 * while sonic-boom is still writing a full buffer leaves the rest waiting; then it sleeps until the next line.
 */
function flushAfterWrites(destination: ReturnType<typeof pino.destination>): void {
  const write = destination.write.bind(destination);
  let timer: NodeJS.Timeout | null = null;
  let linesInWindow = 0;
  const arm = () => {
    timer = setTimeout(() => {
      const lines = linesInWindow;
      linesInWindow = 0;
      timer = null;
      destination.flush();
      if (lines > 0) arm();
    }, LOG_FLUSH_MS);
    timer.unref();
  };
  destination.write = (line: string) => {
    linesInWindow++;
    if (!timer) arm();
    return write(line);
  };
}

/** Fields of a database error that name the schema, never the data: kept in the log. */
const SCHEMA_FIELDS = ['code', 'routine', 'table', 'column', 'constraint', 'dataType'] as const;

/**
 * The `err` serializer: the error's type, message and stack, and nothing else it carries. A
 * database error (TypeORM's QueryFailedError, pg's DatabaseError) is logged by its SQLSTATE and the
 * schema names only: its SQL parameters, `detail` and even its message can quote request data
 * (`invalid input syntax for type timestamp: "..."`), and logs carry no request data beyond ids.
 */
export function loggableError(err: unknown): Record<string, unknown> {
  // pg-boss reports a worker's failure as a plain copy of the error (`{ ...err, message, queue }`): read it like an Error.
  const errorLike = err instanceof Error || (typeof err === 'object' && err !== null && typeof (err as { message?: unknown }).message === 'string');
  if (!errorLike) return { type: typeof err, message: 'a non-Error value was thrown' };
  const e = err as Error & Record<string, unknown>;
  const driver = (e.driverError ?? e) as Record<string, unknown>;
  const isDatabaseError = 'query' in e || 'parameters' in e || (typeof driver.severity === 'string' && typeof driver.code === 'string');
  if (!isDatabaseError) return { type: e.name ?? 'object', message: e.message, stack: e.stack, ...(typeof e.code === 'string' ? { code: e.code } : {}) };
  const schema = Object.fromEntries(SCHEMA_FIELDS.filter((f) => typeof driver[f] === 'string').map((f) => [f, driver[f]]));
  const message = `database error${typeof driver.code === 'string' ? ` ${driver.code}` : ''}`;
  const frames = (e.stack ?? '').split('\n').filter((l) => /^\s+at /.test(l));
  return { type: e.name ?? 'object', message, ...schema, stack: [`${e.name ?? 'Error'}: ${message}`, ...frames].join('\n') };
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
