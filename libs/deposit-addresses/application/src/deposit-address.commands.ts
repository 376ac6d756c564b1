// The deposit-address aggregate's command path (ARCHITECTURE: Inside one service): what follows each
// decision, in its transaction, is the read model as of the last event, then the partner events, each with
// the address as it was at its event (spec: Events, tie 3). A lost destination that leaves the status
// alone (a pending or frozen address) announces nothing: depositAddress.statusChanged names a status change.
import { Injectable } from '@nestjs/common';
import {
  depositAddressDecider,
  depositAddressStreamId,
  depositAddressView,
  requireDepositAddress,
  type DepositAddressCommand,
  type DepositAddressEvent,
  type DepositAddressState,
} from '@mm/deposit-addresses/domain';
import { DepositAddressesReadModel } from '@mm/deposit-addresses/infrastructure';
import {
  CommandHandler,
  publishStateViews,
  type AfterDecision,
  type ReadModelDefinition,
} from '@mm/platform/event-store';
import { DepositAddressesEventStore } from './deposit-addresses.event-store';

type After = AfterDecision<DepositAddressEvent, DepositAddressState>;

@Injectable()
export class DepositAddressCommands extends CommandHandler<
  DepositAddressCommand,
  DepositAddressEvent,
  DepositAddressState
> {
  /** What a rebuild from the log writes again (docs/kubernetes.md, Rebuilding a read model). */
  readonly readModels: ReadModelDefinition[];

  constructor(store: DepositAddressesEventStore, readModel: DepositAddressesReadModel) {
    const project: After = async ({ state, version }, { projectId }) => {
      await readModel.upsert(projectId, depositAddressView(requireDepositAddress(state, projectId)), version);
    };
    const publish = publishStateViews<DepositAddressEvent, DepositAddressState>(
      store,
      depositAddressDecider,
      (state) => depositAddressView(requireDepositAddress(state)) as unknown as Record<string, unknown>,
      (event, before, after) =>
        event.type === 'depositAddress.destinationLost' && before.status === after.status ? { events: [] } : {},
    );
    super(store, { decider: depositAddressDecider, streamId: depositAddressStreamId, then: [project, publish] });
    this.readModels = [
      this.readModel({ name: 'deposit-addresses', table: 'deposit_addresses.addresses', step: project }),
    ];
  }
}
