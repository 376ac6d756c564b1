// The platform's Grafana dashboards as code (docs/metrics.md, "Dashboards"), built with Grafana's foundation SDK:
// an overview for the on-call engineer's first look, and one per flow (money, webhooks, chains). Each panel is a
// Prometheus query over the metrics of docs/metrics.md; a test holds every query to the documented metrics and
// the committed JSON (deploy/grafana/dashboards) to what this file builds (`npm run dashboards` writes it).
import { DashboardBuilder, DatasourceVariableBuilder, RowBuilder } from '@grafana/grafana-foundation-sdk/dashboard';
import type { Dashboard } from '@grafana/grafana-foundation-sdk/dashboard';
import { LegendDisplayMode, LegendPlacement, VizLegendOptionsBuilder } from '@grafana/grafana-foundation-sdk/common';
import { DataqueryBuilder } from '@grafana/grafana-foundation-sdk/prometheus';
import { PanelBuilder } from '@grafana/grafana-foundation-sdk/timeseries';

/** Every panel's queries go to the Prometheus the dashboard's viewer picks. */
const DATASOURCE = { type: 'prometheus', uid: '${datasource}' };

interface Query {
  expr: string;
  legend: string;
}

function panel(title: string, description: string, unit: string, queries: Query[]): PanelBuilder {
  const built = new PanelBuilder()
    .title(title)
    .description(description)
    .unit(unit)
    .min(0)
    .datasource(DATASOURCE)
    .height(8)
    .span(12)
    .legend(
      new VizLegendOptionsBuilder()
        .showLegend(true)
        .displayMode(LegendDisplayMode.List)
        .placement(LegendPlacement.Bottom),
    );
  for (const { expr, legend } of queries) built.withTarget(new DataqueryBuilder().expr(expr).legendFormat(legend));
  return built;
}

function dashboard(uid: string, title: string, rows: Array<[string, PanelBuilder[]]>): Dashboard {
  const built = new DashboardBuilder(title)
    .uid(uid)
    .tags(['money-movement'])
    .refresh('30s')
    .time({ from: 'now-6h', to: 'now' })
    .timezone('utc')
    .withVariable(new DatasourceVariableBuilder('datasource').label('Prometheus').type('prometheus'));
  // Every row and panel an id of its own, in order: Grafana keys a panel's links and state by it.
  let id = 0;
  for (const [row, panels] of rows) {
    built.withRow(new RowBuilder(row).id(++id));
    for (const p of panels) built.withPanel(p.id(++id));
  }
  return built.build();
}

/** Panels more than one dashboard shows: a builder each time, since building sets a panel's id. */
const held = () =>
  panel('Held for an operator', 'Transactions in the held queue', 'short', [
    { expr: 'max(mm_held_transactions)', legend: 'held' },
  ]);
const oldestHeld = () =>
  panel('Oldest held', 'How long the transaction waiting longest on an operator has waited', 's', [
    { expr: 'max(mm_held_oldest_seconds)', legend: 'oldest' },
  ]);
const timersOverdue = () =>
  panel('Timers overdue', 'Timers due for over a minute, by kind: their poller is stuck or failing', 'short', [
    { expr: 'sum by (kind) (mm_timers_overdue)', legend: '{{kind}}' },
  ]);
const webhooksQueued = () =>
  panel('Webhooks queued', 'Deliveries waiting for an attempt', 'short', [
    { expr: 'max(mm_webhook_deliveries_queued)', legend: 'queued' },
  ]);

const requests = [
  panel('Requests', 'Responses a second, by service', 'reqps', [
    { expr: 'sum by (job) (rate(http_requests_total[$__rate_interval]))', legend: '{{job}}' },
  ]),
  panel('Server errors', 'Share of responses that are 5xx, by service (objective: under 1%)', 'percentunit', [
    {
      expr: 'sum by (job) (rate(http_requests_total{status=~"5.."}[$__rate_interval])) / sum by (job) (rate(http_requests_total[$__rate_interval]))',
      legend: '{{job}}',
    },
  ]),
  panel('Latency (p99)', '99th percentile of the time to answer, by service (objective: under 1 s)', 's', [
    {
      expr: 'histogram_quantile(0.99, sum by (job, le) (rate(http_request_duration_seconds_bucket[$__rate_interval])))',
      legend: '{{job}}',
    },
  ]),
  panel('Retried requests', 'Requests answered from their Idempotency-Key: clients retrying', 'reqps', [
    { expr: 'sum by (job) (rate(mm_idempotency_replays_total[$__rate_interval]))', legend: '{{job}}' },
  ]),
];

const waits = [
  panel('Log readers behind', 'How long the oldest unread event of each log has waited, by reader', 's', [
    { expr: 'max by (reader, source) (mm_reader_lag_seconds)', legend: '{{reader}} ← {{source}}' },
  ]),
  timersOverdue(),
  held(),
  oldestHeld(),
  webhooksQueued(),
  panel('Kafka consumers behind', "Messages past each consumer group's committed offsets, by topic", 'short', [
    { expr: 'max by (group, topic) (mm_kafka_consumer_lag_messages)', legend: '{{group}} ← {{topic}}' },
  ]),
  panel('Kafka unreachable', 'How long each process has not reached the broker', 's', [
    { expr: 'max by (job, instance) (mm_kafka_broker_unreachable_seconds)', legend: '{{job}} {{instance}}' },
  ]),
];

export const DASHBOARDS: Record<string, Dashboard> = {
  overview: dashboard('mm-overview', 'Money movement: overview', [
    ['Requests', requests],
    ['What waits', waits],
  ]),
  money: dashboard('mm-money', 'Money movement: money', [
    [
      'The ledger',
      [
        panel('Ledger postings', 'Postings committed a second, by asset', 'ops', [
          { expr: 'sum by (asset) (rate(mm_ledger_postings_total[$__rate_interval]))', legend: '{{asset}}' },
        ]),
        panel('Money routes', 'Responses a second of the routes that move money, by route and status', 'reqps', [
          {
            expr: 'sum by (route, status) (rate(http_requests_total{route=~"/v0.13/(quotes|transactions|sandbox/.*|deposit-addresses/.*|virtual-accounts/.*|cash-ins/.*)",method="POST"}[$__rate_interval]))',
            legend: '{{route}} {{status}}',
          },
        ]),
      ],
    ],
    [
      'Transactions',
      [
        panel('In flight', 'Transactions not ended yet, by sub-status (max over the replicas that read it)', 'short', [
          { expr: 'max by (status, sub_status) (mm_transactions_open)', legend: '{{sub_status}}' },
        ]),
        panel('Ended', 'Transactions ending a second, by how they ended', 'ops', [
          {
            expr: 'sum by (status, sub_status) (rate(mm_transactions_ended_total[$__rate_interval]))',
            legend: '{{status}} {{sub_status}}',
          },
        ]),
      ],
    ],
    ['The operator', [held(), oldestHeld()]],
    [
      'Timers',
      [
        panel('Timers due', 'Timers whose time has come, by kind', 'short', [
          { expr: 'sum by (kind) (mm_timers_due)', legend: '{{kind}}' },
        ]),
        timersOverdue(),
      ],
    ],
  ]),
  webhooks: dashboard('mm-webhooks', 'Money movement: webhooks', [
    [
      'Delivery',
      [
        panel('Attempts', 'Attempts a second, by what they left the delivery', 'ops', [
          { expr: 'sum by (outcome) (rate(mm_webhook_attempts_total[$__rate_interval]))', legend: '{{outcome}}' },
        ]),
        webhooksQueued(),
        panel('Oldest queued', 'How long the oldest queued delivery has waited (alert past an hour)', 's', [
          { expr: 'max(mm_webhook_oldest_queued_seconds)', legend: 'oldest' },
        ]),
        panel('Endpoints suspended', 'Endpoints waiting for their partner to enable them', 'short', [
          { expr: 'max(mm_webhook_endpoints_suspended)', legend: 'suspended' },
        ]),
      ],
    ],
  ]),
  chains: dashboard('mm-chains', 'Money movement: chains', [
    [
      'Readers',
      [
        panel('Blocks behind', "Each chain reader's distance from the node's head", 'short', [
          {
            expr: 'max by (reader, network) (mm_chain_head_block - mm_chain_confirmed_through_block)',
            legend: '{{reader}} {{network}}',
          },
        ]),
        panel('Reorganised', '1 once a confirmed block changed: the reader stopped for an operator', 'short', [
          { expr: 'max by (reader, network) (mm_chain_reorganised)', legend: '{{reader}} {{network}}' },
        ]),
      ],
    ],
    [
      'Books and sweeps',
      [
        panel('Unexplained difference', 'What the chain holds beyond what the ledger explains (zero)', 'short', [
          { expr: 'max by (network) (mm_chain_unexplained_difference_usdc)', legend: '{{network}}' },
        ]),
        panel('Reconciliation age', 'Since the last reconciliation ran', 's', [
          { expr: 'time() - max by (network) (mm_chain_reconciled_timestamp_seconds)', legend: '{{network}}' },
        ]),
        panel('Swept into the treasury', 'USDC a second the sweeps move', 'short', [
          { expr: 'sum by (network) (rate(mm_chain_swept_usdc_total[$__rate_interval]))', legend: '{{network}}' },
        ]),
        panel('Since the last sweep pass', "Since the sweeper's last finished pass (alert past ten minutes)", 's', [
          {
            expr: 'time() - max by (network) (mm_chain_sweep_last_pass_timestamp_seconds)',
            legend: '{{network}}',
          },
        ]),
      ],
    ],
  ]),
};
