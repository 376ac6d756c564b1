// Sandbox: an on-chain deposit reaches an address (spec: Deposit address; Transaction, hold; ADR 0030;
// docs/sandbox.md, "Deposit addresses"). Decided under the customer's lock (which a sender's registration
// takes too) and the address's stream lock (which a PATCH takes), recorded in its own stream with the read
// model in the same transaction, then handed to the transactions service (the port) once committed.
import { Injectable, Logger } from '@nestjs/common';
import {
  AccountsPort,
  ApiError,
  evmAddressProblem,
  GatewayPort,
  toChecksumAddress,
  TransactionsPort,
  type DepositAddressDepositReceived,
} from '@mm/contracts';
import {
  depositAddressDecider,
  depositAddressStreamId,
  dispositionOf,
  requireProvisioned,
  type DepositAddressEvent,
} from '@mm/deposit-addresses/domain';
import { DepositAddressesReadModel, DepositPrices } from '@mm/deposit-addresses/infrastructure';
import { ProjectClock } from '@mm/platform/clock';
import { UnitOfWork } from '@mm/platform/database';
import { fold } from '@mm/platform/decider';
import { runCommand } from '@mm/platform/event-store';
import { newId, randomHex } from '@mm/platform/ids';
import { DepositAddressQueries, requireDepositAddressId, usdcRate } from './deposit-address.queries';
import { DepositAddressesEventStore } from './deposit-addresses.event-store';
import { DepositCommands } from './deposit.commands';

/** POST /deposit-addresses/{id}/simulate/crypto-deposit's answer. */
export interface DepositAddressDepositView {
  object: 'depositAddressDeposit';
  depositAddressId: string;
  amount: string;
  asset: string;
  network: string;
  senderAddress: string;
  txHash: string;
  /** The transaction the deposit made; null for a real transfer sent on a chain, which makes it once confirmed. */
  transactionId: string | null;
}

@Injectable()
export class ReceiveDepositHandler {
  private readonly logger = new Logger('deposit-addresses');

  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: DepositAddressesEventStore,
    private readonly deposits: DepositCommands,
    private readonly queries: DepositAddressQueries,
    private readonly readModel: DepositAddressesReadModel,
    private readonly accounts: AccountsPort,
    private readonly gateway: GatewayPort,
    private readonly transactions: TransactionsPort,
    private readonly prices: DepositPrices,
    private readonly clock: ProjectClock,
  ) {}

  /**
   * A deposit to the address: simulated (a sender and a transaction hash made up when not given), or one the
   * chain watcher saw confirmed (its sender and hash).
   */
  async deposit(
    projectId: string,
    id: string,
    input: { amount: string; senderAddress?: string; txHash?: string },
  ): Promise<DepositAddressDepositView & { transactionId: string }> {
    if (input.senderAddress !== undefined) {
      const problem = evmAddressProblem(input.senderAddress);
      if (problem) throw new ApiError('InvalidWalletAddress', `senderAddress ${problem}`);
    }
    requireDepositAddressId(id);
    const senderAddress = input.senderAddress ?? toChecksumAddress(`0x${randomHex(20)}`);
    const received = await runCommand(this.uow, async () => {
      // One round trip: the address's row (a 404 for one this project does not have), its customer's lock,
      // then its own lock and history; the row's refusal first.
      const [address, , locked] = await Promise.allSettled([
        this.queries.row(projectId, id),
        this.readModel.lockCustomerOfAddress(projectId, id),
        this.store.lockAndReadStream(depositAddressStreamId(id)),
      ]);
      if (address.status === 'rejected') throw address.reason;
      if (locked.status === 'rejected') throw locked.reason;
      const row = address.value;
      const history = locked.value;
      const state = fold(depositAddressDecider, history as unknown as DepositAddressEvent[]);
      const at = (await this.clock.now(projectId)).toISOString();
      // Refused before anything is asked of the other services when the address cannot take it.
      const existing = requireProvisioned(state, projectId);
      const registeredSender = await this.accounts.registeredWallet(
        projectId,
        row.customer_id,
        existing.record.expectedSourceNetwork,
        senderAddress,
      );
      const held = dispositionOf(existing, registeredSender !== null) === 'awaitingSenderAttribution';
      const transactionId = newId('transaction');
      // A stream of the transaction id minted above: its first event travels with the commit.
      const { events } = await this.deposits.handle(
        projectId,
        transactionId,
        {
          type: 'ReceiveDeposit',
          address: state,
          deposit: {
            projectId,
            transactionId,
            amount: input.amount,
            senderAddress,
            txHash: input.txHash ?? `0x${randomHex(32)}`,
            registeredSender,
            attributionTimeoutHours: held ? (await this.gateway.project(projectId)).attributionTimeoutHours : null,
            rate: usdcRate(this.prices, existing.destination.instrument.asset),
            at,
          },
        },
        { newStream: true, deferAppend: true },
      );
      const data = events[0].data as DepositAddressDepositReceived;
      await this.readModel.recordDeposit({
        transactionId: data.transactionId,
        projectId,
        customerId: data.customerId,
        depositAddressId: id,
        amount: data.deposit.amount,
        senderAddress,
        network: data.deposit.network,
        disposition: data.disposition,
        held:
          data.disposition === 'awaitingSenderAttribution'
            ? 'attribution'
            : data.disposition === 'payoutDestinationMissing'
              ? 'destination'
              : null,
        attributionDeadline: data.attributionDeadline,
        at,
      });
      // Once the deposit is committed (the record the transactions service would make it from anyway),
      // before the answer: the transaction exists when its id is announced.
      await this.uow.afterCommit(() => this.createTransaction(projectId, data));
      return data;
    });
    return {
      object: 'depositAddressDeposit',
      depositAddressId: id,
      amount: received.deposit.amount,
      asset: received.deposit.asset,
      network: received.deposit.network,
      senderAddress: received.deposit.senderAddress,
      txHash: received.deposit.txHash,
      transactionId: received.transactionId,
    };
  }

  private async createTransaction(projectId: string, data: DepositAddressDepositReceived): Promise<void> {
    try {
      await this.transactions.createForDepositAddress(projectId, data);
    } catch (error) {
      // The deposit is committed: the transactions service makes the transaction from its event in our log.
      this.logger.warn(
        `deposit ${data.transactionId} to ${data.depositAddressId}: the transactions service did not take it at once (${String(error)}); it follows from the log`,
      );
    }
  }
}
