// The transactions port (libs/contracts ports.ts): what other services ask of
// the transactions service at once. In one process they call this class
// (joining their database transaction, so a cash-in completes together with
// its transaction); across processes they post to TransactionsInternalController.
import { Body, Controller, HttpCode, Injectable, Post } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import {
  TransactionsPort,
  type CashInTransactionRequest,
  type DepositAddressDepositReceived,
  type VirtualAccountDepositReceived,
} from '@mm/contracts';
import { DepositTransactionsHandler, TransactionQueries } from '@mm/transactions/application';
import { InternalRoute, NoIdempotencyKey } from '@mm/platform/http';

@Injectable()
export class TransactionsPortAdapter extends TransactionsPort {
  constructor(
    private readonly deposits: DepositTransactionsHandler,
    private readonly queries: TransactionQueries,
  ) {
    super();
  }

  createForCashIn(projectId: string, deposit: CashInTransactionRequest): Promise<{ transactionId: string }> {
    return this.deposits.createForCashIn(projectId, deposit);
  }

  createForDepositAddress(
    projectId: string,
    deposit: DepositAddressDepositReceived,
  ): Promise<{ transactionId: string }> {
    return this.deposits.createForDepositAddress(projectId, deposit);
  }

  createForVirtualAccount(
    projectId: string,
    deposit: VirtualAccountDepositReceived,
  ): Promise<{ transactionId: string }> {
    return this.deposits.createForVirtualAccount(projectId, deposit);
  }

  unfinishedTransactions(projectId: string, transactionIds: string[]): Promise<string[]> {
    return this.queries.unfinishedTransactions(projectId, transactionIds);
  }

  heldForDestination(projectId: string, transactionIds: string[]): Promise<string[]> {
    return this.queries.heldForDestination(projectId, transactionIds);
  }
}

@ApiExcludeController()
@Controller('internal/transactions')
export class TransactionsInternalController {
  constructor(private readonly port: TransactionsPortAdapter) {}

  @Post('cash-in')
  @InternalRoute()
  @NoIdempotencyKey()
  @HttpCode(200)
  createForCashIn(
    @Body() body: { projectId: string; deposit: CashInTransactionRequest },
  ): Promise<{ transactionId: string }> {
    return this.port.createForCashIn(String(body.projectId), body.deposit);
  }

  @Post('deposit-address')
  @InternalRoute()
  @NoIdempotencyKey()
  @HttpCode(200)
  createForDepositAddress(
    @Body() body: { projectId: string; deposit: DepositAddressDepositReceived },
  ): Promise<{ transactionId: string }> {
    return this.port.createForDepositAddress(String(body.projectId), body.deposit);
  }

  @Post('virtual-account')
  @InternalRoute()
  @NoIdempotencyKey()
  @HttpCode(200)
  createForVirtualAccount(
    @Body() body: { projectId: string; deposit: VirtualAccountDepositReceived },
  ): Promise<{ transactionId: string }> {
    return this.port.createForVirtualAccount(String(body.projectId), body.deposit);
  }

  @Post('unfinished')
  @InternalRoute()
  @NoIdempotencyKey()
  @HttpCode(200)
  unfinishedTransactions(@Body() body: { projectId: string; transactionIds: string[] }): Promise<string[]> {
    return this.port.unfinishedTransactions(
      String(body.projectId),
      Array.isArray(body.transactionIds) ? body.transactionIds.map(String) : [],
    );
  }

  @Post('held-for-destination')
  @InternalRoute()
  @NoIdempotencyKey()
  @HttpCode(200)
  heldForDestination(@Body() body: { projectId: string; transactionIds: string[] }): Promise<string[]> {
    return this.port.heldForDestination(
      String(body.projectId),
      Array.isArray(body.transactionIds) ? body.transactionIds.map(String) : [],
    );
  }
}
