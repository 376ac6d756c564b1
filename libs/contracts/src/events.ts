// One typed map from event type to payload (STYLE: events are the record).
// Past-tense names; a payload that changes shape gets a new versioned type.

export type EndorsementName = 'basic' | 'cryptoCustody' | 'usd';
export const ENDORSEMENT_NAMES: readonly EndorsementName[] = ['basic', 'cryptoCustody', 'usd'];
export type EndorsementStatus = 'pending' | 'active' | 'rejected';

export interface LedgerEntry {
  /** `wallet:<wlt_id>` or `sandbox-funding:<asset>:<network>` */
  account: string;
  /** Signed decimal string; the entries of one posting sum to zero. */
  amount: string;
}

export interface EventPayloads {
  // gateway
  'project.created': { projectId: string; name: string; features: ProjectFeatures; createdAt: string };
  'project.updated': { projectId: string; changes: ProjectChanges; updatedAt: string };
  /** secretHash is the HMAC of the secret, never the secret (spec: Authentication, item 1). */
  'apiKey.created': { projectId: string; apiKey: string; mode: 'sdbx' | 'live'; secretHash: string; createdAt: string };
  'apiKey.revoked': { projectId: string; apiKey: string; revokedAt: string };
  'publishableKey.created': { projectId: string; publishableKey: string; mode: 'sdbx' | 'live'; createdAt: string };
  'publishableKey.revoked': { projectId: string; publishableKey: string; revokedAt: string };

  // accounts
  'customer.created': {
    customerId: string;
    projectId: string;
    type: 'individual';
    firstName: string;
    lastName: string;
    email: string | null;
    createdAt: string;
  };
  'endorsement.requested': { customerId: string; projectId: string; name: EndorsementName; requestedAt: string };
  'endorsement.approved': { customerId: string; projectId: string; name: EndorsementName; previousStatus: EndorsementStatus; approvedAt: string };
  'endorsement.rejected': { customerId: string; projectId: string; name: EndorsementName; previousStatus: EndorsementStatus; reason: string; rejectedAt: string };
  'wallet.provisioned': {
    walletId: string;
    projectId: string;
    customerId: string;
    asset: string;
    network: string;
    address: string;
    createdAt: string;
  };
  'wallet.credited': { walletId: string; projectId: string; postingId: string; amount: string; balance: string; entries: LedgerEntry[]; reason: string; at: string };
  'wallet.debited': { walletId: string; projectId: string; postingId: string; amount: string; balance: string; entries: LedgerEntry[]; reason: string; at: string };
}

export type EventType = keyof EventPayloads;
export type TypedEvent<T extends EventType = EventType> = { [K in T]: { type: K; data: EventPayloads[K] } }[T];

export interface ProjectFeatures {
  depositAddresses: boolean;
  cashPickup: boolean;
  globalRemittance: boolean;
  bulkPayouts: boolean;
}

export interface ProjectLimits {
  perTransactionMin?: string | null;
  perTransactionMax?: string | null;
  perTransactionMultiple?: string | null;
  dailyBankPayoutCap?: string | null;
  monthlyBankPayoutCap?: string | null;
}

export interface ProjectChanges {
  features?: Partial<ProjectFeatures>;
  limits?: ProjectLimits;
  attributionTimeoutHours?: number;
}
