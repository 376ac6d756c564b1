// What the workload, the nemesis and the checker of the fault run (`npm run chaos`, docs/reliability.md) see of
// the platform under test: its public entries and the handles the nemesis pulls. The cluster (cluster.ts)
// implements it; the workload and the checker use only `gateways`, `adminToken` and the chain's node, as a
// partner and an operator would, never the database.
import type { ChaosChain } from './chain';

/** A fault on one link, as toxiproxy names them (fault-proxy.ts). */
export type Fault =
  /** Every chunk, each way, delayed by ms ± jitterMs (order kept). */
  | { kind: 'latency'; ms: number; jitterMs?: number }
  /** Every open connection reset now, and each new one reset as it is accepted, until healed. */
  | { kind: 'reset' }
  /** Connections accepted and never answered, nothing forwarded either way: a partition as a process sees it. */
  | { kind: 'blackhole' }
  /** A side's close reaches the other side only ms later; data before it still flows. */
  | { kind: 'slowClose'; ms: number }
  /** Nothing listens: a connect is refused, every open connection closed. */
  | { kind: 'down' };

/** A process of the cluster: a service's replica. */
export interface Replica {
  service: string;
  /** 0 or 1. */
  index: number;
  /** `<service>-<index>`, as faults and logs name it. */
  name: string;
  /** Its own HTTP address (http://127.0.0.1:port). */
  url: string;
  /** Its pid while it runs, else undefined. */
  pid(): number | undefined;
  /** Its last `count` warnings and errors, and its own plain lines (a restart's), newest last. */
  warnings(count: number): string[];
}

/** The links a fault can be put on: a replica's connections to PostgreSQL, to Kafka, or to the chain's node. */
export type LinkKind = 'postgres' | 'kafka' | 'chain';

export interface ChaosTarget {
  /** The gateways' public addresses (http://127.0.0.1:port), one per gateway replica; each serves the whole API. */
  readonly gateways: readonly string[];
  /** The operator's token for /admin routes. */
  readonly adminToken: string;
  /** The chain a network runs on, when one does: the replicas reach it through `chain` links. */
  readonly chain?: ChaosChain;
  readonly replicas: readonly Replica[];
  /** kill -9 of one replica; resolves once it is gone. */
  kill(replica: string): Promise<void>;
  /** Starts a killed replica again on its address; resolves once it answers /readyz. */
  restart(replica: string): Promise<void>;
  /** Puts a fault on one replica's link (replacing the link's fault), or takes it off (null). */
  fault(replica: string, link: LinkKind, fault: Fault | null): Promise<void>;
  /** Stops PostgreSQL (fast: sessions ended cleanly; immediate: as a crash, recovery at start) and starts it again. */
  restartPostgres(mode: 'fast' | 'immediate'): Promise<void>;
  /** The broker goes away for ms (no connect accepted, every connection closed), then comes back on its address. */
  restartKafka(ms: number): Promise<void>;
  /** Every fault off, every killed replica started again; resolves once every replica answers /readyz. */
  heal(): Promise<void>;
  /** Every process stopped, PostgreSQL and the broker too (whatever the cluster started itself). */
  stop(): Promise<void>;
  /** The recent output of a replica (for an anomaly's report). */
  output(replica: string): string;
}
