// The chain's answers about payouts (spec: Transaction legs; docs/chain.md): a transfer from the treasury that
// has the network's confirmations settles its leg with the real transaction hash; one the token reverted fails
// it. Recorded in the transaction that marks the chain payout settled, so a crash records it once.
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { ProjectClock } from '@mm/platform/clock';
import type { RailOutcome } from '@mm/transactions/domain';
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

  private async answer({ projectId, transactionId, legId, kind, txHash }: ChainPayoutReport): Promise<void> {
    const at = (await this.clock.now(projectId)).toISOString();
    const outcome: RailOutcome =
      kind === 'confirmed'
        ? { kind: 'settled', references: { txHash } }
        : { kind: 'failed', failure: { code: 'chain_reverted', message: 'the token contract reverted the transfer' } };
    await this.commands.handle(projectId, transactionId, { type: 'ReportLeg', legId, outcome, at });
  }
}
