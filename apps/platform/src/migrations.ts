// Every migration of every service, in order: platform mode runs them all
// against one database (each service in its own schema).
import type { MigrationClass } from '@mm/platform/database';
import { PlatformSubscriptions1700000000000 } from '@mm/platform/event-store';

export const platformMigrations: MigrationClass[] = [PlatformSubscriptions1700000000000];
