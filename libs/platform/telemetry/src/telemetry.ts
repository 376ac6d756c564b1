// OpenTelemetry (ARCHITECTURE: Cross-cutting HTTP conventions): traces across
// HTTP, PostgreSQL and the event transport. Off unless an OTLP endpoint or a
// traces exporter is configured through the standard OTEL_* variables, which
// the SDK itself reads; then incoming and outgoing HTTP and every pg query are
// spans, and the event transport continues the trace of the command that
// appended each event (its W3C traceparent travels in the event's metadata).
// Types only at the top: the SDK and its instrumentations (some 450 modules, a quarter of a second of CPU) are loaded
// when tracing is configured, so a process that does not trace, which is every process by default, never loads them.
import type { NodeSDK } from '@opentelemetry/sdk-node';

const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);
let running: NodeSDK | undefined;

export function telemetryConfigured(env: Record<string, string | undefined> = process.env): boolean {
  const exporter = env.OTEL_TRACES_EXPORTER;
  return Boolean(
    env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || (exporter && exporter !== 'none'),
  );
}

/** Starts tracing when configured. Must run before http and pg are first required (a -r preload). */
export function startTelemetry(serviceName: string): void {
  if (running || !telemetryConfigured()) return;
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { HttpInstrumentation } =
    require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { PgInstrumentation } =
    require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const sdk = new NodeSDK({
    serviceName: process.env.OTEL_SERVICE_NAME ?? serviceName,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.has((request.url ?? '').split('?')[0]),
      }),
      // Statement text only, never bound values: parameters carry customer data.
      new PgInstrumentation({ enhancedDatabaseReporting: false }),
    ],
  });
  sdk.start();
  running = sdk;
}

/** Flushes and stops tracing, if it was started. */
export async function shutdownTelemetry(): Promise<void> {
  const sdk = running;
  running = undefined;
  await sdk?.shutdown();
}
