import pino, { Logger } from 'pino';

/**
 * JSON logs; credentials are redacted wherever they could appear. Lines go to stdout through
 * pino's asynchronous destination: writes that pile up under load leave in one syscall, off the
 * event loop, and pino flushes what is pending when the process exits.
 */
export function createLogger(level: string): Logger {
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
  }, pino.destination({ dest: 1, sync: false, minLength: 0 }));
}

export type { Logger };
