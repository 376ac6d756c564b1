// Transactions born of a deposit, skipping the quote (spec: rule 3): a cash-in's cash (States / Cash-in), a
// deposit address's crypto (Deposit address), a virtual account's inbound transfer (Virtual account). Each is
// made twice over, once: by the transactions port, which the other service calls before it answers the
// deposit with the transaction's id (in one process joining its database transaction; across processes
// committing first), and by the log reader of that service's deposit event, which then finds it made.
import { Injectable } from '@nestjs/common';
import { ApiError, type EventPayloads, type TransactionCreated } from '@mm/contracts';
import { UnitOfWork } from '@mm/platform/database';
import { ConcurrencyError, runCommand, type RecordedEvent } from '@mm/platform/event-store';
import { isId } from '@mm/platform/ids';
import {
  bankDepositLeg,
  cashInTransactionRecord,
  cryptoDepositLeg,
  depositLeg,
  depositNext,
  depositTransactionRecord,
  VIRTUAL_ACCOUNT_INACTIVE,
  virtualAccountTransactionRecord,
  type TransactionCommand,
} from '@mm/transactions/domain';
import { LegAccountChecks } from './leg-account-checks';
import { MadeTransactions } from './made-transactions';
import { TransactionCommands } from './transaction.commands';

type CashInDeposit = EventPayloads['cashIn.deposited'];
type AddressDeposit = EventPayloads['depositAddress.depositReceived'];
type InboundTransfer = EventPayloads['virtualAccount.depositReceived'];

/** What a deposit's transaction is made from: the deposit names its project and the transaction's id. */
interface Deposit {
  projectId: string;
  transactionId: string;
}

@Injectable()
export class DepositTransactionsHandler {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly commands: TransactionCommands,
    private readonly made: MadeTransactions,
    private readonly accounts: LegAccountChecks,
  ) {}

  /** The transactions port: a cash-in's transaction, made before the cash-in announces its id (cashIn.completed, the deposit's response). */
  createForCashIn(projectId: string, deposit: CashInDeposit): Promise<{ transactionId: string }> {
    return this.createFromPort(projectId, deposit, () => cashInCreation(deposit));
  }

  /** The transactions port: a deposit address deposit's transaction, made before the deposit is answered with its id. */
  createForDepositAddress(projectId: string, deposit: AddressDeposit): Promise<{ transactionId: string }> {
    return this.createFromPort(projectId, deposit, () => this.addressCreation(deposit));
  }

  /** The transactions port: an inbound transfer's transaction, made before the transfer is answered with its id. */
  createForVirtualAccount(projectId: string, deposit: InboundTransfer): Promise<{ transactionId: string }> {
    return this.createFromPort(projectId, deposit, () => inboundTransferCreation(deposit));
  }

  /**
   * The cash-in service confirmed a cash deposit: its transaction starts `processing` with the cash already in
   * (its deposit leg on the cash rail settles at once) and the crypto goes out to the cash-in's destination.
   */
  onCashInDeposited(event: RecordedEvent<'cashIn.deposited', CashInDeposit>): Promise<void> {
    return this.createFromEvent(event.data, () => cashInCreation(event.data));
  }

  /** A deposit reached a deposit address: its transaction, once, however often this arrives. */
  onDepositReceived(event: RecordedEvent<'depositAddress.depositReceived', AddressDeposit>): Promise<void> {
    return this.createFromEvent(event.data, () => this.addressCreation(event.data));
  }

  /** An inbound transfer reached a virtual account: its transaction, once, however often this arrives. */
  onVirtualAccountDeposit(event: RecordedEvent<'virtualAccount.depositReceived', InboundTransfer>): Promise<void> {
    return this.createFromEvent(event.data, () => inboundTransferCreation(event.data));
  }

  /**
   * A deposit address deposit's transaction: its crypto settled, then what its disposition says. A deposit sent
   * straight back goes to the return wallet: checked now, as every refund is (ADR 0056).
   */
  private async addressCreation(d: AddressDeposit): Promise<TransactionCommand> {
    const record = depositTransactionRecord(d);
    const full = { ...record, status: 'processing', subStatus: null, at: d.at } as TransactionCreated;
    let next = depositNext(full, d, `${d.transactionId}.2`);
    if (next.kind === 'return')
      next = {
        ...next,
        refused: (await this.accounts.unusable(d.projectId, full, { kind: 'refund' }, 'start'))?.failure,
      };
    return {
      type: 'CreateFromDeposit',
      record,
      depositLeg: cryptoDepositLeg(d),
      txHash: d.deposit.txHash,
      next,
      at: d.at,
    };
  }

  /** The log reader's: made unless the port made it first. */
  private async createFromEvent(
    deposit: Deposit,
    creation: () => TransactionCommand | Promise<TransactionCommand>,
  ): Promise<void> {
    if (await this.made.exists(deposit.transactionId)) return;
    await this.createOnce(deposit, await creation(), false);
  }

  /**
   * The port's. Outside a caller's transaction its first attempt appends the stream's first events with the
   * commit, one round trip less than appending them alone: the log reader making the same transaction at the
   * same moment is rare, and then the commit fails on the stream's unique version, and the retry, appending at
   * once, finds the transaction made.
   */
  private async createFromPort(
    projectId: string,
    deposit: Deposit | undefined,
    creation: () => TransactionCommand | Promise<TransactionCommand>,
  ): Promise<{ transactionId: string }> {
    if (deposit?.projectId !== projectId || !isId('transaction', String(deposit.transactionId))) {
      throw new ApiError('InvalidRequest', 'the deposit names another project or no transaction id');
    }
    let first = !this.uow.inTransaction;
    await runCommand(this.uow, async () => {
      const deferAppend = first;
      first = false;
      await this.createOnce(deposit, await creation(), deferAppend);
    });
    // Made (or found made), once that commits: its deposit event, read by this process's log reader
    // moments later, needs no probe of the database to know it.
    await this.uow.afterCommit(async () => this.made.remember(deposit.transactionId));
    return { transactionId: deposit.transactionId };
  }

  /**
   * A transaction made from another service's event, which the port may be making at the same moment
   * (it runs after that service's commit, while the log reader may already read the event): whichever
   * appends second fails, a ConcurrencyError ignored here. Under a savepoint, so that the failure
   * (a unique violation aborts a transaction) undoes only this step: the log reader's batch, which
   * holds the other events of the batch and the checkpoint, goes on instead of rolling back and being
   * read again. (The port's first attempt, which no caller's batch holds, defers its append instead.)
   */
  private async createOnce(
    { projectId, transactionId }: Deposit,
    command: TransactionCommand,
    deferAppend: boolean,
  ): Promise<void> {
    try {
      if (deferAppend)
        await this.commands.handle(projectId, transactionId, command, { newStream: true, deferAppend: true });
      else await this.uow.savepoint(() => this.commands.handle(projectId, transactionId, command, { newStream: true }));
    } catch (error) {
      if (error instanceof ConcurrencyError) return;
      throw error;
    }
  }
}

/** A cash-in's transaction: its cash deposit leg, the crypto's delivery next. */
function cashInCreation(d: CashInDeposit): TransactionCommand {
  const record = cashInTransactionRecord(d);
  const full = { ...record, status: 'processing', subStatus: null, at: d.at } as TransactionCreated;
  return { type: 'CreateTransaction', record, firstLeg: depositLeg(full, `${d.transactionId}.1`), at: d.at };
}

/**
 * An inbound transfer's transaction: created `processing` with its bank deposit leg pending (the bank settles
 * it on its rail), or, for an account that takes no deposits now, failed at once with the deposit returned.
 */
function inboundTransferCreation(d: InboundTransfer): TransactionCommand {
  const returned = d.disposition === 'returnToSender' ? VIRTUAL_ACCOUNT_INACTIVE : undefined;
  return {
    type: 'CreateTransaction',
    record: virtualAccountTransactionRecord(d),
    firstLeg: bankDepositLeg(d),
    returned,
    at: d.at,
  };
}
