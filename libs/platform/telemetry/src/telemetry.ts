// OpenTelemetry (ARCHITECTURE: Cross-cutting HTTP conventions): traces across
// HTTP, PostgreSQL and the event transport. Off unless an OTLP endpoint or a
// traces exporter is configured through the standard OTEL_* variables, which
// the SDK itself reads; then incoming and outgoing HTTP and every pg query are
// spans, and the event transport continues the trace of the command that
// appended each event (its W3C traceparent travels in the event's metadata).
import { NodeSDK } from '@opentelemetry/sdk-node';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';

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
