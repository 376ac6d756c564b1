// Every migration of every service, in order: platform mode runs them all
// against one database (each service in its own schema).
import { SERVICE_NAMES } from '@mm/contracts';
import { migrationsFor } from './services';

export const platformMigrations = migrationsFor(SERVICE_NAMES);
