// Nest's logger and Fastify's go through one pino instance. Credentials never
// reach a log line: headers are not logged, and fields that could carry a
// secret are redacted wherever they appear. A line written while a request is
// handled carries its id (ADR 0026). JSON lines, or pino-pretty's one-line
// form for a person at a terminal (MM_LOG_FORMAT).
import type { LoggerService } from '@nestjs/common';
import pino, { type DestinationStream, type Level, type LevelWithSilent, type Logger } from 'pino';
import { currentRequestId, SENSITIVE_FIELDS } from '@mm/platform/http';

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["api-key"]',
  ...SENSITIVE_FIELDS.map((field) => `*.${field}`),
];

export type LogFormat = 'auto' | 'json' | 'pretty';

/** Human-readable lines when asked, or by default when standard output is a terminal; JSON lines otherwise. */
export function prettyLogs(format: LogFormat, stdoutIsTerminal = Boolean(process.stdout.isTTY)): boolean {
  return format === 'pretty' || (format === 'auto' && stdoutIsTerminal);
}

/** pino-pretty's formatter (loaded only when wanted), each line written to stdout as it comes, in order with the banner. */
function prettyStdout(): DestinationStream {
  /* eslint-disable-next-line @typescript-eslint/no-require-imports */
  const { prettyFactory } = require('pino-pretty') as {
    prettyFactory(options: Record<string, unknown>): (line: string) => string;
  };
  const format = prettyFactory({
    colorize: Boolean(process.stdout.isTTY),
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    // An access line's fields are its message already.
    ignore: 'pid,hostname,service,context,method,route,path,status,durationMs',
    messageFormat: '{if context}[{context}] {end}{msg}',
  });
  return { write: (line: string) => process.stdout.write(format(line)) };
}

/**
 * destination: where the lines go (the e2e suite reads them to check none carries a secret); stdout by
 * default, formatted as `format` says.
 */
export function createRootLogger(level: string, destination?: DestinationStream, format: LogFormat = 'auto'): Logger {
  const options = {
    level,
    base: { service: 'money-movement' },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    // The id of the request this line was written for, whichever code wrote it; a field the line sets itself wins.
    mixin: () => {
      const requestId = currentRequestId();
      return requestId === undefined ? {} : { requestId };
    },
  };
  if (destination) return pino(options, destination);
  return prettyLogs(format) ? pino(options, prettyStdout()) : pino(options);
}

/**
 * The level Fastify's own lines are written at: at info, only its warnings and errors (its "Server listening"
 * line and a proxied request's "fetching"/"response received" lines repeat the banner and the access line).
 */
export function frameworkLevel(level: string): LevelWithSilent {
  return (level === 'info' ? 'warn' : level) as LevelWithSilent;
}

/** Nest's start-up narration (modules loaded, each route mapped): debugging detail, not start-up news. */
const NEST_START_UP = new Set([
  'NestFactory',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestApplication',
  'NestMicroservice',
]);

export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  private write(level: Level, message: unknown, rest: unknown[]) {
    const context = typeof rest[rest.length - 1] === 'string' ? (rest[rest.length - 1] as string) : undefined;
    const at = level === 'info' && context !== undefined && NEST_START_UP.has(context) ? 'debug' : level;
    this.logger[at]({ context }, typeof message === 'string' ? message : JSON.stringify(message));
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
