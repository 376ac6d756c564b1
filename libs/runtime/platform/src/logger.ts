// Nest's logger and Fastify's request log both go through one pino instance.
// Credentials never reach a log line: headers are not logged, and fields that
// could carry a secret are redacted wherever they appear.
import type { LoggerService } from '@nestjs/common';
import pino, { type DestinationStream, type Logger } from 'pino';

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["api-key"]',
  '*.apiSecret',
  '*.accessToken',
  '*.accountNumber',
  '*.iban',
  '*.cardNumber',
  '*.cvc',
  '*.taxId',
  '*.password',
];

/** destination: where the lines go (stdout by default; the e2e suite reads them to check none carries a secret). */
export function createRootLogger(level: string, destination?: DestinationStream): Logger {
  const options = { level, base: { service: 'money-movement' }, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, timestamp: pino.stdTimeFunctions.isoTime };
  return destination ? pino(options, destination) : pino(options);
}

export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  private write(level: 'info' | 'error' | 'warn' | 'debug' | 'trace', message: unknown, rest: unknown[]) {
    const context = typeof rest[rest.length - 1] === 'string' ? (rest[rest.length - 1] as string) : undefined;
    this.logger[level]({ context }, typeof message === 'string' ? message : JSON.stringify(message));
  }

  log(message: unknown, ...rest: unknown[]) {
    this.write('info', message, rest);
  }
  error(message: unknown, ...rest: unknown[]) {
    this.write('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]) {
    this.write('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]) {
    this.write('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]) {
    this.write('trace', message, rest);
  }
}
