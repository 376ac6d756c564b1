// The virtual-account aggregate's command path (ARCHITECTURE: Inside one service): what follows each
// decision, in its transaction, is the read model as of the last event, then the partner events, each with
// the account as it was at its event (spec: Events, ties 3 and 4).
import { Injectable } from '@nestjs/common';
import {
  requireVirtualAccount,
  virtualAccountDecider,
  virtualAccountStreamId,
  virtualAccountView,
  type VirtualAccountCommand,
  type VirtualAccountEvent,
  type VirtualAccountState,
} from '@mm/virtual-accounts/domain';
import { VirtualAccountsReadModel } from '@mm/virtual-accounts/infrastructure';
import {
  CommandHandler,
  publishStateViews,
  type AfterDecision,
  type ReadModelDefinition,
} from '@mm/platform/event-store';
import { VirtualAccountsEventStore } from './virtual-accounts.event-store';

type After = AfterDecision<VirtualAccountEvent, VirtualAccountState>;

@Injectable()
export class VirtualAccountCommands extends CommandHandler<
  VirtualAccountCommand,
  VirtualAccountEvent,
  VirtualAccountState
> {
  /** What a rebuild from the log writes again (docs/kubernetes.md, Rebuilding a read model). */
  readonly readModels: ReadModelDefinition[];

  constructor(store: VirtualAccountsEventStore, readModel: VirtualAccountsReadModel) {
    const project: After = async ({ state, version }, { projectId }) => {
      await readModel.upsert(projectId, virtualAccountView(requireVirtualAccount(state, projectId)), version);
    };
    const publish = publishStateViews<VirtualAccountEvent, VirtualAccountState>(
      store,
      virtualAccountDecider,
      (state) => virtualAccountView(requireVirtualAccount(state)) as unknown as Record<string, unknown>,
    );
    super(store, { decider: virtualAccountDecider, streamId: virtualAccountStreamId, then: [project, publish] });
    this.readModels = [this.readModel({ name: 'virtual-accounts', table: 'virtual_accounts.accounts', step: project })];
  }
}
