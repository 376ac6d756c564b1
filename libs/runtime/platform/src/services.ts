// What each service brings to an application (ARCHITECTURE: One codebase, two
// ways to run it): its Nest module, its migrations, its events log, and the logs
// of other services it reacts to. Platform mode composes them all in one
// process; distributed mode runs one per process.
import type { Type } from '@nestjs/common';
import { AccountsModule } from '@mm/accounts/api';
import { CashInModule } from '@mm/cash-in/api';
import { CashIn1700000006000 } from '@mm/cash-in/infrastructure';
import {
  Accounts1700000002000,
  AccountsCardExpiryTimers1700000002360,
  AccountsChainCustody1700000002400,
  AccountsExternalAccounts1700000002100,
  AccountsRebuildableCustomers1700000002500,
} from '@mm/accounts/infrastructure';
import type { ServiceName } from '@mm/contracts';
import { DepositAddressesModule } from '@mm/deposit-addresses/api';
import {
  DepositAddresses1700000007000,
  DepositAddressesChainCustody1700000007100,
  DepositAddressesRebuildable1700000007200,
} from '@mm/deposit-addresses/infrastructure';
import { GatewayModule } from '@mm/gateway/api';
import { VirtualAccountsModule } from '@mm/virtual-accounts/api';
import {
  VirtualAccounts1700000008000,
  VirtualAccountsRebuildable1700000008100,
} from '@mm/virtual-accounts/infrastructure';
import {
  Gateway1700000001000,
  GatewayApiKeyRevocations1700000001500,
  GatewayAuditLog1700000001900,
  GatewayFourEyesThreshold1700000001950,
  GatewayApiKeyDetails1700000001960,
  GatewayRequestLogs1700000001970,
  GatewayProjectChanges1700000001800,
  GatewayRateLimits1700000001700,
  GatewaySigningKeyEncryption1700000001600,
} from '@mm/gateway/infrastructure';
import { PlatformApiKeys1700000000300 } from '@mm/platform/auth';
import {
  PlatformChainCursors1700000000400,
  PlatformChainPayoutPurpose1700000000430,
  PlatformChainPayouts1700000000410,
  PlatformChainSweeps1700000000440,
  PlatformCustodyAddresses1700000000420,
} from '@mm/platform/chain';
import {
  PlatformClock1700000000200,
  PlatformClockAcknowledged1700000000230,
  PlatformClockChanges1700000000210,
} from '@mm/platform/clock';
import { CacheListeners1700000000220, type MigrationClass } from '@mm/platform/database';
import { PlatformSubscriptions1700000000000 } from '@mm/platform/event-store';
import { QuotingModule } from '@mm/quoting/api';
import {
  Quoting1700000004000,
  QuotingCashPickup1700000004100,
  QuotingProjectFeaturesDropped1700000004200,
} from '@mm/quoting/infrastructure';
import { TransactionsModule } from '@mm/transactions/api';
import {
  TransactionLimitChanges1700000005200,
  TransactionLimits1700000005100,
  TransactionApprovals1700000005700,
  TransactionProjectLimitsDropped1700000005300,
  TransactionRailSubmissions1700000005400,
  Transactions1700000005000,
  TransactionsHeldIndex1700000005500,
  TransactionsOpenIndex1700000005600,
} from '@mm/transactions/infrastructure';
import { WebhooksModule } from '@mm/webhooks/api';
import {
  WebhookAnnouncementOrder1700000003300,
  WebhookDeliveries1700000003100,
  WebhookDeliveryRetries1700000003500,
  WebhookEndpointChanges1700000003200,
  WebhookPartnerEvents1700000003400,
  Webhooks1700000003000,
  WebhookSigningKeyOverlap1700000003600,
} from '@mm/webhooks/infrastructure';
import {
  PlatformIdempotency1700000000100,
  PlatformIdempotencyClaim1700000000110,
  PlatformIdempotencyResponseText1700000000120,
} from '@mm/platform/http';

/** The platform schema every application has: checkpoints, idempotency keys, clocks, timers. */
export const BASE_MIGRATIONS: MigrationClass[] = [
  PlatformSubscriptions1700000000000,
  PlatformIdempotency1700000000100,
  PlatformIdempotencyClaim1700000000110,
  PlatformIdempotencyResponseText1700000000120,
  PlatformClock1700000000200,
  PlatformClockChanges1700000000210,
  CacheListeners1700000000220,
  PlatformClockAcknowledged1700000000230,
];

export interface ServiceDefinition {
  module: Type;
  /** This service's own schema. */
  migrations: MigrationClass[];
  /** The schema of its events log. */
  schema: string;
  /** The schemas of the other services' logs it reacts to, when it runs alone. */
  consumes: string[];
}

export const SERVICES: Record<ServiceName, ServiceDefinition> = {
  gateway: {
    module: GatewayModule,
    migrations: [
      Gateway1700000001000,
      GatewayApiKeyRevocations1700000001500,
      GatewaySigningKeyEncryption1700000001600,
      GatewayRateLimits1700000001700,
      GatewayProjectChanges1700000001800,
      GatewayAuditLog1700000001900,
      GatewayFourEyesThreshold1700000001950,
      GatewayApiKeyDetails1700000001960,
      GatewayRequestLogs1700000001970,
    ],
    schema: 'gateway',
    consumes: [],
  },
  accounts: {
    module: AccountsModule,
    // Alone, it learns of API keys from the gateway's events (platform.api_keys).
    migrations: [
      PlatformApiKeys1700000000300,
      Accounts1700000002000,
      AccountsExternalAccounts1700000002100,
      AccountsCardExpiryTimers1700000002360,
      PlatformChainCursors1700000000400,
      AccountsChainCustody1700000002400,
      AccountsRebuildableCustomers1700000002500,
      PlatformCustodyAddresses1700000000420,
    ],
    schema: 'accounts',
    // The ledger side of the transaction saga reacts to the transactions service's legs.
    consumes: ['gateway', 'transactions'],
  },
  quoting: {
    module: QuotingModule,
    migrations: [
      PlatformApiKeys1700000000300,
      Quoting1700000004000,
      QuotingCashPickup1700000004100,
      QuotingProjectFeaturesDropped1700000004200,
    ],
    schema: 'quoting',
    // API keys (gateway); cash pickup: retail locations (cash_in), expired pickups' refunds (transactions). It asks
    // the gateway (a project's features) and the accounts service through ports.
    consumes: ['gateway', 'cash_in', 'transactions'],
  },
  transactions: {
    module: TransactionsModule,
    migrations: [
      PlatformApiKeys1700000000300,
      Transactions1700000005000,
      TransactionLimits1700000005100,
      TransactionLimitChanges1700000005200,
      TransactionProjectLimitsDropped1700000005300,
      TransactionRailSubmissions1700000005400,
      TransactionsHeldIndex1700000005500,
      TransactionsOpenIndex1700000005600,
      TransactionApprovals1700000005700,
      PlatformChainPayouts1700000000410,
      PlatformChainPayoutPurpose1700000000430,
      // The sweeper reads the derived addresses the accounts and deposit-addresses services register.
      PlatformCustodyAddresses1700000000420,
      PlatformChainSweeps1700000000440,
    ],
    schema: 'transactions',
    // API keys (gateway; it asks the gateway's port for a project's limits); the saga's answers from the ledger
    // (funds.returned); cash-ins' deposits (cashIn.deposited); deposit addresses' deposits, attributions and
    // restored destinations; virtual accounts' inbound transfers.
    consumes: ['gateway', 'accounts', 'cash_in', 'deposit_addresses', 'virtual_accounts'],
  },
  webhooks: {
    module: WebhooksModule,
    migrations: [
      PlatformApiKeys1700000000300,
      Webhooks1700000003000,
      WebhookDeliveries1700000003100,
      WebhookEndpointChanges1700000003200,
      WebhookAnnouncementOrder1700000003300,
      WebhookPartnerEvents1700000003400,
      WebhookDeliveryRetries1700000003500,
      WebhookSigningKeyOverlap1700000003600,
    ],
    schema: 'webhooks',
    // Every partner-visible event is fanned out from the other services' logs.
    consumes: ['gateway', 'accounts', 'transactions', 'cash_in', 'deposit_addresses', 'virtual_accounts'],
  },
  'cash-in': {
    module: CashInModule,
    migrations: [PlatformApiKeys1700000000300, CashIn1700000006000],
    schema: 'cash_in',
    // Alone, API keys from the gateway; it asks the accounts service (the port) for the rest.
    consumes: ['gateway'],
  },
  'deposit-addresses': {
    module: DepositAddressesModule,
    migrations: [
      PlatformApiKeys1700000000300,
      DepositAddresses1700000007000,
      PlatformChainCursors1700000000400,
      DepositAddressesChainCustody1700000007100,
      DepositAddressesRebuildable1700000007200,
      PlatformCustodyAddresses1700000000420,
    ],
    schema: 'deposit_addresses',
    // API keys (gateway); lost destinations and registered senders' wallets (accounts); deposits held for a
    // destination (transactions). It asks the gateway (features, attribution timeout), the accounts service and
    // the transactions service through ports.
    consumes: ['gateway', 'accounts', 'transactions'],
  },
  'virtual-accounts': {
    module: VirtualAccountsModule,
    migrations: [PlatformApiKeys1700000000300, VirtualAccounts1700000008000, VirtualAccountsRebuildable1700000008100],
    schema: 'virtual_accounts',
    // API keys (gateway); deposits held for a destination (transactions). It asks the accounts service
    // (customers, wallets, external accounts) and the transactions service (a deposit's transaction, a
    // delete's unfinished ones, the deposits waiting for a destination) through ports.
    consumes: ['gateway', 'transactions'],
  },
};

/** The migrations of an application running these services. */
export function migrationsFor(services: readonly ServiceName[]): MigrationClass[] {
  const standalone = !services.includes('gateway');
  // A platform table two services keep (the chain cursors) is made once.
  return [
    ...new Set([
      ...BASE_MIGRATIONS,
      ...services.flatMap((s) =>
        SERVICES[s].migrations.filter((m) => standalone || m !== PlatformApiKeys1700000000300),
      ),
    ]),
  ];
}
