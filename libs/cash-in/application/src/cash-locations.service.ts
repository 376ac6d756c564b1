// Cash locations (spec: Cash location (read), Endpoints; API-CONTRACT: Cash
// locations): the retail network's directory searched nearest first, and
// published in this service's log (cashLocation.published, one stream per
// location) at start-up whenever a location is new or changed, for the services
// that need them without asking (the quoting service's cash-pickup limits by
// state). Replicas starting together append once: each append names the
// version it saw, and a loser runs again and finds nothing left to do.
import { isDeepStrictEqual } from 'node:util';
import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { ApiError, type CashLocationPublished } from '@mm/contracts';
import {
  checkProvider,
  parseCoordinates,
  parseFlow,
  searchLocations,
  type CashLocation,
  type LocationResult,
} from '@mm/cash-in/domain';
import { CashLocationsReadModel, RetailNetwork } from '@mm/cash-in/infrastructure';
import { UnitOfWork } from '@mm/platform/database';
import { runCommand } from '@mm/platform/event-store';
import { CashInEventStore } from './cash-in.event-store';

export interface LocationSearch {
  provider?: string;
  latitude?: string;
  longitude?: string;
  flow?: string;
  /** The locId the previous page ended with. */
  after?: string;
  limit: number;
}

export const cashLocationStreamId = (locId: string) => `cashLocation-${locId}`;

@Injectable()
export class CashLocationsService implements OnApplicationBootstrap {
  private readonly logger = new Logger('cash-locations');

  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: CashInEventStore,
    private readonly published: CashLocationsReadModel,
    private readonly network: RetailNetwork,
  ) {}

  /** The page of matches after `after` (limit + 1 rows: the extra one only says there are more). */
  search(query: LocationSearch): LocationResult[] {
    const locations = this.network.locations();
    const results = searchLocations(locations, {
      provider: checkProvider(locations, query.provider),
      flow: parseFlow(query.flow),
      near: parseCoordinates(query.latitude, query.longitude),
    });
    let start = 0;
    if (query.after !== undefined) {
      const index = results.findIndex((r) => r.locId === query.after);
      // A cursor of another search (other filters, other coordinates) names no row of this one.
      if (index < 0) throw new ApiError('InvalidCursor', 'cursor must be a nextCursor of this same search');
      start = index + 1;
    }
    return results.slice(start, start + query.limit + 1);
  }

  async onApplicationBootstrap(): Promise<void> {
    const appended = await runCommand(this.uow, () => this.publish());
    if (appended > 0) this.logger.log(`published ${appended} cash location(s)`);
  }

  /** Appends cashLocation.published for each location not yet published as it is now; returns how many. */
  async publish(): Promise<number> {
    const current = new Map((await this.published.all()).map((row) => [row.loc_id, row]));
    const publishedAt = new Date().toISOString();
    let appended = 0;
    for (const location of this.network.locations()) {
      const row = current.get(location.locId);
      if (row && sameLocation(row.location, location)) continue;
      const data: CashLocationPublished = {
        ...location,
        address: { ...location.address },
        flows: [...location.flows],
        publishedAt,
      };
      const [event] = await this.store.append(cashLocationStreamId(location.locId), row ? row.version : 'no_stream', [
        { type: 'cashLocation.published', data },
      ]);
      await this.published.upsert(data, event.streamVersion);
      appended++;
    }
    return appended;
  }
}

function sameLocation(published: CashLocationPublished, location: CashLocation): boolean {
  const { publishedAt: _publishedAt, ...rest } = published;
  return isDeepStrictEqual(rest, { ...location, address: { ...location.address }, flows: [...location.flows] });
}
