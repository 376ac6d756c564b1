// A fresh database per test file, cloned from the migrated template that the
// Jest global setup prepared (a real PostgreSQL, never a mock).
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { createDataSource, UnitOfWork } from '@mm/platform/database';

export interface TestDatabase {
  url: string;
  dataSource: DataSource;
  uow: UnitOfWork;
  close(): Promise<void>;
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the suite through jest (its global setup prepares PostgreSQL)`);
  return value;
}

/** Creates an empty-but-migrated database and returns its URL. */
export async function cloneTemplateDatabase(): Promise<string> {
  const adminUrl = required('MM_TEST_ADMIN_URL');
  const template = required('MM_TEST_TEMPLATE_DB');
  const name = `mm_test_${template.replace('mm_template_', '')}_${randomBytes(5).toString('hex')}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
        break;
      } catch (error) {
        // Two files cloning the template at the same moment: try again shortly.
        if (attempt >= 20 || !/being accessed by other users/.test(String(error))) throw error;
        await new Promise((r) => setTimeout(r, 50 * attempt));
      }
    }
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function createTestDatabase(poolSize = 10): Promise<TestDatabase> {
  const url = await cloneTemplateDatabase();
  const dataSource = createDataSource({ url, migrations: [], poolSize });
  await dataSource.initialize();
  return {
    url,
    dataSource,
    uow: new UnitOfWork(dataSource),
    close: async () => {
      if (dataSource.isInitialized) await dataSource.destroy();
    },
  };
}

/**
 * Connections of their own to the same database: what a second process of a service would have.
 * Two caches built on `db.uow` and on this one stand for two processes (their feeds listen apart).
 */
export async function anotherProcess(db: Pick<TestDatabase, 'url'>, poolSize = 2): Promise<TestDatabase> {
  const dataSource = createDataSource({ url: db.url, migrations: [], poolSize });
  await dataSource.initialize();
  return {
    url: db.url,
    dataSource,
    uow: new UnitOfWork(dataSource),
    close: async () => {
      if (dataSource.isInitialized) await dataSource.destroy();
    },
  };
}
