// The chain's answers about payouts (spec: Transaction legs; docs/chain.md): a transfer from the treasury that
// has the network's confirmations settles its leg with the real transaction hash; one the token reverted fails
// it; one not mined in time (replaced at higher fees) makes the payout unconfirmed until one of them lands. Recorded in the transaction that marks the chain payout settled, so a crash records it once.
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { ProjectClock } from '@mm/platform/clock';
import { CHAIN_REVERTED, type RailOutcome } from '@mm/transactions/domain';
import { ChainPayoutRail, type ChainPayoutReport } from '@mm/transactions/infrastructure';
import { TransactionCommands } from './transaction.commands';

@Injectable()
export class ChainPayoutAnswersHandler implements OnModuleInit {
  constructor(
    private readonly chain: ChainPayoutRail,
    private readonly commands: TransactionCommands,
    private readonly clock: ProjectClock,
  ) {}

  onModuleInit(): void {
    this.chain.onReport((report) => this.answer(report));
  }

  private async answer(report: ChainPayoutReport): Promise<void> {
    const { projectId, transactionId, legId } = report;
    const at = (await this.clock.now(projectId)).toISOString();
    const outcome: RailOutcome =
      report.kind === 'unconfirmed'
        ? { kind: 'unconfirmed' }
        : report.kind === 'confirmed'
          ? { kind: 'settled', references: { txHash: report.txHash } }
          : { kind: 'failed', failure: CHAIN_REVERTED };
    await this.commands.handle(projectId, transactionId, { type: 'ReportLeg', legId, outcome, at });
  }
}
