// GET /metrics (API-CONTRACT: outside the base path): Prometheus text format.
// Process metrics, and per-route request counts and latencies labelled by the
// route pattern (never the raw URL, which carries ids).
import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { Public } from './route-metadata';

export class HttpMetrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by method and route pattern',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  private readonly replays = new Counter({
    name: 'mm_idempotency_replays_total',
    help: 'Requests answered with the stored response of an earlier one with the same Idempotency-Key and body',
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** A request answered from its key's stored response (Idempotent-Replayed: true). */
  replayed(): void {
    this.replays.inc();
  }

  /**
   * Gauges without labels whose values one read gives (a query, say), made at a scrape at most once a second
   * however many of them ask; a read that fails (undefined) leaves them out of that scrape rather than wrong.
   */
  readGauges<F extends string>(
    read: () => Promise<Record<F, number> | undefined>,
    gauges: ReadonlyArray<{ name: string; help: string; field: F }>,
  ): void {
    let last: { at: number; values: Promise<Record<F, number> | undefined> } | undefined;
    const values = () => {
      if (!last || Date.now() - last.at > 1000) last = { at: Date.now(), values: read().catch(() => undefined) };
      return last.values;
    };
    for (const { name, help, field } of gauges)
      new Gauge({
        name,
        help,
        registers: [this.registry],
        async collect() {
          this.reset();
          const read = await values();
          if (read) this.set(read[field]);
        },
      });
  }

  /** Counts every response, including errors and unknown routes. */
  instrument(fastify: FastifyInstance): void {
    // A callback hook, not an async one: no promise per response.
    fastify.addHook('onResponse', (request, reply, done) => {
      const route = request.routeOptions.url ?? 'unmatched';
      this.requests.inc({ method: request.method, route, status: String(reply.statusCode) });
      this.duration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
      done();
    });
  }
}

@ApiExcludeController()
@Public()
@Controller()
export class MetricsController {
  constructor(private readonly metrics: HttpMetrics) {}

  @Get('metrics')
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  scrape(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
