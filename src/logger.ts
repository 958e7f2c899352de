import pino, { Logger } from 'pino';

/** JSON logs; credentials are redacted wherever they could appear. */
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
  });
}

export type { Logger };
