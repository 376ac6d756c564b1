// Loaded with -r before main.ts, so tracing patches http and pg before any
// other module requires them. Does nothing unless OTEL_* configures an exporter.
import { startTelemetry } from '@mm/platform/telemetry';

startTelemetry('money-movement-platform');
