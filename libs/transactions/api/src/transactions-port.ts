// The transactions port (libs/contracts ports.ts): what other services ask of
// the transactions service at once. In one process they call this class
// (joining their database transaction, so a cash-in completes together with
// its transaction); across processes they post to TransactionsInternalController.
import { Body, Controller, HttpCode, Injectable, Post } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { TransactionsPort, type CashInTransactionRequest, type DepositAddressDepositReceived } from '@mm/contracts';
import { TransactionsService } from '@mm/transactions/application';
import { InternalRoute, NoIdempotencyKey } from '@mm/platform/http';

@Injectable()
export class TransactionsPortAdapter extends TransactionsPort {
  constructor(private readonly transactions: TransactionsService) {
    super();
  }

  createForCashIn(projectId: string, deposit: CashInTransactionRequest): Promise<{ transactionId: string }> {
    return this.transactions.createForCashIn(projectId, deposit);
  }

  createForDepositAddress(projectId: string, deposit: DepositAddressDepositReceived): Promise<{ transactionId: string }> {
    return this.transactions.createForDepositAddress(projectId, deposit);
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
  createForCashIn(@Body() body: { projectId: string; deposit: CashInTransactionRequest }): Promise<{ transactionId: string }> {
    return this.port.createForCashIn(String(body.projectId), body.deposit);
  }

  @Post('deposit-address')
  @InternalRoute()
  @NoIdempotencyKey()
  @HttpCode(200)
  createForDepositAddress(@Body() body: { projectId: string; deposit: DepositAddressDepositReceived }): Promise<{ transactionId: string }> {
    return this.port.createForDepositAddress(String(body.projectId), body.deposit);
  }
}
