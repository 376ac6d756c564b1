// Reacts to endorsement.requested: asks the KYC provider (the sandbox
// reviewer here) and records its verdict. Runs off the events log, so the
// request that asked for the endorsement returns at once with it pending, and
// the approval follows asynchronously, as with a real reviewer.
import { Injectable } from '@nestjs/common';
import type { EventPayloads } from '@mm/contracts';
import { AccountsReadModels, KycProvider } from '@mm/accounts/infrastructure';
import type { RecordedEvent } from '@mm/platform/event-store';
import { CustomersService } from './customers.service';

@Injectable()
export class EndorsementReviewer {
  constructor(
    private readonly customers: CustomersService,
    private readonly readModels: AccountsReadModels,
    private readonly kyc: KycProvider,
  ) {}

  async onEndorsementRequested(
    event: RecordedEvent<'endorsement.requested', EventPayloads['endorsement.requested']>,
  ): Promise<void> {
    const { projectId, customerId, name } = event.data;
    const customer = await this.readModels.customer(projectId, customerId);
    if (!customer) return;
    const current = customer.endorsements.find((e) => e.name === name);
    if (current?.status !== 'pending') return; // decided already (a redelivery)
    await this.customers.decideEndorsement(projectId, customerId, name, await this.kyc.review(customer, name));
  }
}
