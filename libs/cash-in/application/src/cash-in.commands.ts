// The cash-in aggregate's command path (ARCHITECTURE: Inside one service): what follows each decision, in
// its transaction, is the read model as of the last event, the expiry timer armed for the live code
// (spec: Cash-in: a code is valid for an hour), and the partner events, each with the cash-in as it was
// at its event (spec: Events, ties 1 and 6).
import { Injectable } from '@nestjs/common';
import {
  cashInDecider,
  cashInStreamId,
  cashInView,
  requireCashIn,
  type CashInCommand,
  type CashInEvent,
  type CashInState,
} from '@mm/cash-in/domain';
import { CashInsReadModel } from '@mm/cash-in/infrastructure';
import { TimerService } from '@mm/platform/clock';
import {
  CommandHandler,
  publishStateViews,
  type AfterDecision,
  type ReadModelDefinition,
  type RecordedEvent,
} from '@mm/platform/event-store';
import { CashInEventStore } from './cash-in.event-store';

/** The durable timer that expires a cash-in's code (key: the cash-in id). */
export const CODE_EXPIRY_TIMER = 'cashIn.codeExpiry';

type After = AfterDecision<CashInEvent, CashInState>;

@Injectable()
export class CashInCommands extends CommandHandler<CashInCommand, CashInEvent, CashInState> {
  /** What a rebuild from the log writes again (docs/kubernetes.md, Rebuilding a read model). */
  readonly readModels: ReadModelDefinition[];

  constructor(store: CashInEventStore, readModel: CashInsReadModel, timers: TimerService) {
    const project: After = async ({ state, version }, { projectId }) => {
      await readModel.upsert(projectId, cashInView(requireCashIn(state, projectId)), version);
    };
    // The deposits that count towards the customer's cash-in limits: counted once, when made, never rebuilt.
    const countDeposits: After = async ({ events }, { projectId, id }) => {
      for (const event of events as unknown as Array<RecordedEvent & CashInEvent>) {
        if (event.type === 'cashIn.deposited')
          await readModel.recordDeposit(projectId, event.data.customerId, id, event.data.deposit.amount, event.data.at);
      }
    };
    const armExpiry: After = async ({ state, events }, { projectId, id }) => {
      if (events.some((e) => e.type === 'cashIn.created' || e.type === 'cashIn.codeRefreshed')) {
        await timers.schedule(projectId, CODE_EXPIRY_TIMER, id, new Date(requireCashIn(state, projectId).expiresAt), {
          cashInId: id,
        });
      }
    };
    // A refresh is the cash-in's update (cashIn.updated): a new code, valid an hour from now.
    const publish = publishStateViews<CashInEvent, CashInState>(
      store,
      cashInDecider,
      (state) => cashInView(requireCashIn(state)) as unknown as Record<string, unknown>,
      (event) => (event.type === 'cashIn.codeRefreshed' ? { changedFields: ['depositInstructions'] } : {}),
    );
    super(store, {
      decider: cashInDecider,
      streamId: cashInStreamId,
      then: [project, countDeposits, armExpiry, publish],
    });
    this.readModels = [this.readModel({ name: 'cash-ins', table: 'cash_in.cash_ins', step: project })];
  }
}
