// The accounts service's partner-visible events (spec: Events / Catalog:
// endorsements, wallets, external accounts, counterparties), published in the
// command's transaction with the resource as a read shows it (ADR 0018).
import { Injectable } from '@nestjs/common';
import { publishPartnerEvents, type PartnerResource, type RecordedEvent } from '@mm/platform/event-store';
import { AccountsEventStore } from './accounts.event-store';

type Shape = Record<string, unknown>;

/** The partner-facing shapes, as the API layer maps them (bound in the accounts module). */
export abstract class AccountsPartnerViews {
  abstract customer(projectId: string, id: string): Promise<Shape | undefined>;
  abstract wallet(projectId: string, id: string): Promise<Shape | undefined>;
  /** Deleted ones too: `externalAccount.deleted` carries the account as it was deleted. */
  abstract externalAccount(projectId: string, id: string): Promise<Shape | undefined>;
  /** Deleted ones too, with status `deleted`. */
  abstract counterparty(projectId: string, id: string): Promise<Shape | undefined>;
}

@Injectable()
export class AccountsPartnerEvents {
  constructor(
    private readonly store: AccountsEventStore,
    private readonly views: AccountsPartnerViews,
  ) {}

  /** In the command's transaction, after its inline projection. */
  publish(events: readonly RecordedEvent[]): Promise<void> {
    return publishPartnerEvents(this.store, events, (event) => this.resource(event));
  }

  private async resource(event: RecordedEvent): Promise<PartnerResource | undefined> {
    const d = event.data as {
      projectId: string;
      customerId?: string;
      walletId?: string;
      externalAccountId?: string;
      counterpartyId?: string;
    };
    const of = async (
      id: string | undefined,
      read: (projectId: string, id: string) => Promise<Shape | undefined>,
      previousStatus?: string | null,
      changedFields?: string[],
    ) => {
      const data = id ? await read(d.projectId, id) : undefined;
      return data && id
        ? {
            resourceId: id,
            data,
            ...(previousStatus !== undefined ? { previousStatus } : {}),
            ...(changedFields ? { changedFields } : {}),
          }
        : undefined;
    };
    switch (event.type.slice(0, event.type.indexOf('.'))) {
      case 'endorsement':
        // An endorsement requested, approved or rejected changes the customer's `endorsements` (endorsement.updated).
        return of(d.customerId, (p, id) => this.views.customer(p, id), undefined, ['endorsements']);
      case 'wallet':
        return of(d.walletId, (p, id) => this.views.wallet(p, id));
      case 'externalAccount':
        return of(d.externalAccountId, (p, id) => this.views.externalAccount(p, id));
      case 'counterparty':
        // A counterparty is active from creation to deletion: its two status changes.
        return of(
          d.counterpartyId,
          (p, id) => this.views.counterparty(p, id),
          event.type === 'counterparty.deleted' ? 'active' : null,
        );
      default:
        return undefined;
    }
  }
}
