// Every migration of every service, in order: platform mode runs them all
// against one database (each service in its own schema).
import { Accounts1700000002000 } from '@mm/accounts/infrastructure';
import { Gateway1700000001000, GatewayApiKeyRevocations1700000001500, GatewaySigningKeyEncryption1700000001600 } from '@mm/gateway/infrastructure';
import type { MigrationClass } from '@mm/platform/database';
import { PlatformClock1700000000200, PlatformClockChanges1700000000210 } from '@mm/platform/clock';
import { PlatformSubscriptions1700000000000 } from '@mm/platform/event-store';
import { PlatformIdempotency1700000000100, PlatformIdempotencyClaim1700000000110 } from '@mm/platform/http';

export const platformMigrations: MigrationClass[] = [
  PlatformSubscriptions1700000000000,
  PlatformIdempotency1700000000100,
  PlatformIdempotencyClaim1700000000110,
  PlatformClock1700000000200,
  PlatformClockChanges1700000000210,
  Gateway1700000001000,
  GatewayApiKeyRevocations1700000001500,
  GatewaySigningKeyEncryption1700000001600,
  Accounts1700000002000,
];
