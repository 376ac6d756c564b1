// The retail locations as the cash-in service last published them
// (cashLocation.published), so that start-up appends only what is new or changed.
import { Injectable } from '@nestjs/common';
import type { CashLocationPublished } from '@mm/contracts';
import { UnitOfWork } from '@mm/platform/database';

export interface PublishedLocationRow {
  loc_id: string;
  version: number;
  location: CashLocationPublished;
}

@Injectable()
export class CashLocationsReadModel {
  constructor(private readonly uow: UnitOfWork) {}

  all(): Promise<PublishedLocationRow[]> {
    return this.uow.query<PublishedLocationRow>(`SELECT loc_id, version, location FROM cash_in.cash_locations`);
  }

  async upsert(location: CashLocationPublished, version: number): Promise<void> {
    await this.uow.query(
      `INSERT INTO cash_in.cash_locations (loc_id, version, location, published_at) VALUES ($1, $2, $3::jsonb, $4)
       ON CONFLICT (loc_id) DO UPDATE SET version = EXCLUDED.version, location = EXCLUDED.location, published_at = EXCLUDED.published_at`,
      [location.locId, version, JSON.stringify(location), location.publishedAt],
    );
  }
}
