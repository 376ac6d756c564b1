// USDC that reaches a deposit address on a chain starts the deposit flow the spec describes (spec: Deposit
// address; docs/chain.md): the chain watcher hands over each confirmed transfer, and one to an address the
// custodian derived is received as the simulation receives one, with the chain's sender and transaction hash.
// Each transfer is recorded by its key (chain id, transaction hash, log index) in the transaction that moves
// the watcher's cursor, so one read twice makes one transaction. The chain cannot be refused: a transfer the
// address cannot take as a deposit (an amount that pays out in no whole cent) is kept with the reason, for
// an operator, and the watcher goes on.
import { Injectable, Logger } from '@nestjs/common';
import { ApiError } from '@mm/contracts';
import { DepositAddressCustody } from '@mm/deposit-addresses/infrastructure';
import { ChainNetworks, ChainTransferReader, transferKey, type ConfirmedTransfer } from '@mm/platform/chain';
import { PlatformConfig } from '@mm/platform/config';
import { UnitOfWork } from '@mm/platform/database';
import { ReceiveDepositHandler } from './receive-deposit.handler';

/** The watchers' cursor name for deposit addresses. */
export const DEPOSIT_ADDRESSES_READER = 'deposit-addresses';

@Injectable()
export class ChainDepositsHandler extends ChainTransferReader {
  private readonly logger = new Logger('deposit-addresses');

  constructor(
    private readonly uow: UnitOfWork,
    chains: ChainNetworks,
    private readonly custody: DepositAddressCustody,
    private readonly receive: ReceiveDepositHandler,
    config: PlatformConfig,
  ) {
    super(uow, chains, config, DEPOSIT_ADDRESSES_READER);
  }

  protected async read(network: string, moving: ConfirmedTransfer[]): Promise<void> {
    const addresses = await this.custody.at(network, [...new Set(moving.map((t) => t.to))]);
    const byAddress = new Map(addresses.map((a) => [a.address.toLowerCase(), a]));
    for (const transfer of moving) {
      const address = byAddress.get(transfer.to.toLowerCase());
      if (!address) continue;
      const key = transferKey(transfer);
      if (!(await this.custody.firstArrival(key, address.deposit_address_id))) continue;
      try {
        const received = await this.uow.savepoint(() =>
          this.receive.deposit(address.project_id, address.deposit_address_id, {
            amount: transfer.amount,
            senderAddress: transfer.from,
            txHash: transfer.transactionHash,
          }),
        );
        await this.custody.arrivalOutcome(key, { transactionId: received.transactionId });
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        await this.custody.arrivalOutcome(key, { refused: error.message });
        this.logger.error(
          `${transfer.amount} usdc reached deposit address ${address.deposit_address_id} on ${network} (${transfer.transactionHash}) and made no transaction: ${error.errorName}; an operator's to settle`,
        );
      }
    }
  }
}
