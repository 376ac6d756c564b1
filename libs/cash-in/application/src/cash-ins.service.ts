// Cash-ins (spec: Cash-in; States / Cash-in; Limits / Cash-in; Events, ties 1
// and 6; ADR 0020). A cash-in resolves its customer and destination through the
// accounts port, its location in the retail network, and issues a one-time code
// unique among live ones (the database's partial unique index; a collision runs
// the command again with a new code). It expires by a durable timer on the
// project's clock, and reads as expired from the code's expiresAt on. The
// retail partner's deposit completes it once, under the customer's usage lock,
// with the limits counted in the same transaction, and has the transactions
// service create its transaction (the transactions port) before announcing it:
// cashIn.deposited remains the record the transactions service would create it
// from, should the port's answer be lost.
import { randomInt } from 'node:crypto';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import {
  AccountsPort,
  ApiError,
  OPERATION_ENDORSEMENTS,
  requireEndorsement,
  TransactionsPort,
  type CashInCreated,
  type CashInDestination,
  type EventPayloads,
  requireCustomerId,
} from '@mm/contracts';
import {
  addressDestination,
  cashInLocation,
  cashInPricing,
  cashInRates,
  cashInView,
  requireCashIn,
  codeExpiresAt,
  DEPOSIT_CODE_SPACE,
  externalAccountDestination,
  formatDepositCode,
  planCashIn,
  viewAt,
  walletDestination,
  windowStarts,
  type CashInPlan,
  type CashInRequest,
  type CashInState,
  type CashInView,
} from '@mm/cash-in/domain';
import { CashInPrices, CashInsReadModel, RetailNetwork, type CashInRow } from '@mm/cash-in/infrastructure';
import { ProjectClock, TimerService, type DueTimer } from '@mm/platform/clock';
import { UnitOfWork } from '@mm/platform/database';
import { runCommand } from '@mm/platform/event-store';
import { isId, newId } from '@mm/platform/ids';
import { CashInCommands, CODE_EXPIRY_TIMER } from './cash-in.commands';

@Injectable()
export class CashInsService implements OnModuleInit {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly commands: CashInCommands,
    private readonly readModel: CashInsReadModel,
    private readonly accounts: AccountsPort,
    private readonly transactions: TransactionsPort,
    private readonly network: RetailNetwork,
    private readonly prices: CashInPrices,
    private readonly clock: ProjectClock,
    private readonly timers: TimerService,
  ) {}

  onModuleInit(): void {
    this.timers.on(CODE_EXPIRY_TIMER, (timer) => this.onCodeExpiry(timer));
  }

  /** A cash-in as read now on its project's clock. */
  async require(projectId: string, id: string): Promise<CashInView> {
    const row = await this.row(projectId, id);
    return viewAt(row.view, (await this.clock.now(projectId)).toISOString());
  }

  async list(projectId: string, before: string | undefined, limit: number): Promise<CashInView[]> {
    const rows = await this.readModel.list(projectId, before, limit);
    const now = (await this.clock.now(projectId)).toISOString();
    return rows.map((r) => viewAt(r.view, now));
  }

  async create(projectId: string, request: CashInRequest): Promise<CashInView> {
    const plan = planCashIn(request);
    requireCustomerId(request.customerId);
    if (!isId('cashLocation', request.cash.locationId))
      throw new ApiError(
        'InvalidCashLocationID',
        `"${request.cash.locationId.slice(0, 64)}" is not a cash location id (loc_…)`,
      );
    const customer = await this.accounts.customer(projectId, request.customerId);
    // The spec: "The customer needs an active usd endorsement", as the accounts service has it now.
    requireEndorsement(customer, OPERATION_ENDORSEMENTS.cashIn, 'a cash-in');
    const location = cashInLocation(this.network.locations(), request.cash.locationId, request.cash.locationReference);
    const destination = await this.destination(projectId, request.customerId, plan);
    const rate = this.rate(plan.asset);
    return runCommand(this.uow, async () => {
      const at = (await this.clock.now(projectId)).toISOString();
      const cashInId = newId('cashIn');
      const record: CashInCreated = {
        cashInId,
        projectId,
        customerId: request.customerId,
        indicatedAmount: plan.indicatedAmount,
        estimate: plan.indicatedAmount === null ? null : cashInPricing(plan.indicatedAmount, plan.asset, rate),
        rates: cashInRates(plan.asset, rate),
        destination,
        location: {
          locId: location.locId,
          reference: location.cashLocationReference,
          name: location.name,
          provider: location.provider,
          state: location.address.state,
          address: location.address,
        },
        sponsorGas: true,
        code: newDepositCode(),
        expiresAt: codeExpiresAt(at),
        metadata: request.metadata ?? {},
        createdAt: at,
      };
      const usage = await this.readModel.usage(projectId, request.customerId, windowStarts(at));
      const { state } = await this.commands.handle(
        projectId,
        cashInId,
        { type: 'CreateCashIn', record, usage },
        { newStream: true },
      );
      return cashInView(requireCashIn(state, projectId));
    });
  }

  /** A new code valid an hour from now; the previous one is void. */
  async refresh(projectId: string, id: string): Promise<CashInView> {
    await this.row(projectId, id);
    return runCommand(this.uow, async () => {
      const at = (await this.clock.now(projectId)).toISOString();
      const { state } = await this.commands.handle(projectId, id, (current) => ({
        type: 'RefreshCode',
        projectId,
        code: newDepositCode(liveCode(current)),
        at,
      }));
      return cashInView(requireCashIn(state, projectId));
    });
  }

  /** The retail partner confirms the deposit (the sandbox's simulation route). */
  async deposit(projectId: string, id: string, amount: string, code?: string): Promise<CashInView> {
    const { customer_id: customerId, view } = await this.row(projectId, id);
    const rate = this.rate(view.destination.asset);
    return runCommand(this.uow, async () => {
      // The customer's lock first, then the cash-in's: every deposit takes them in this order.
      await this.readModel.lockCustomer(projectId, customerId);
      const at = (await this.clock.now(projectId)).toISOString();
      const usage = await this.readModel.usage(projectId, customerId, windowStarts(at));
      const { state, events } = await this.commands.handle(projectId, id, {
        type: 'DepositCash',
        projectId,
        amount,
        code,
        rate,
        usage,
        at,
      });
      await this.timers.cancel(CODE_EXPIRY_TIMER, id);
      // The transaction exists before its id is announced (cashIn.completed, this response): in one
      // process in this very database transaction; across processes committed just before this one.
      for (const event of events)
        if (event.type === 'cashIn.deposited')
          await this.transactions.createForCashIn(projectId, event.data as EventPayloads['cashIn.deposited']);
      return cashInView(requireCashIn(state, projectId));
    });
  }

  /** The code's timer: expired once its expiresAt has passed on the project's clock (a refresh re-arms it). */
  private async onCodeExpiry(timer: DueTimer): Promise<void> {
    const at = (await this.clock.now(timer.projectId)).toISOString();
    await this.commands.handle(timer.projectId, String(timer.payload.cashInId), {
      type: 'ExpireCashIn',
      projectId: timer.projectId,
      at,
    });
  }

  private async row(projectId: string, id: string): Promise<CashInRow> {
    if (!isId('cashIn', id)) throw new ApiError('InvalidCashInID', `"${id.slice(0, 64)}" is not a cash-in id (ci_…)`);
    const row = await this.readModel.get(projectId, id);
    if (!row) throw new ApiError('CashInNotFound');
    return row;
  }

  private rate(asset: string): string {
    const rate = this.prices.rate(asset);
    if (!rate) throw new ApiError('UnsupportedAssetNetwork', `no price for usd in ${asset}`);
    return rate;
  }

  private async destination(projectId: string, customerId: string, plan: CashInPlan): Promise<CashInDestination> {
    const target = plan.target;
    if (target.kind === 'wallet') {
      if (!isId('wallet', target.walletId))
        throw new ApiError('InvalidWalletID', `"${target.walletId.slice(0, 64)}" is not a wallet id (wlt_…)`);
      return walletDestination(customerId, plan, await this.accounts.wallet(projectId, target.walletId));
    }
    if (target.kind === 'externalAccount') {
      return externalAccountDestination(
        customerId,
        plan,
        await this.accounts.externalAccount(projectId, target.externalAccountId),
      );
    }
    return addressDestination(plan, target.address);
  }
}

function liveCode(state: CashInState): string | undefined {
  return state.status === 'none' ? undefined : state.code;
}

/** A code drawn uniformly from the million, never the one it replaces. */
function newDepositCode(replacing?: string): string {
  for (;;) {
    const code = formatDepositCode(randomInt(0, DEPOSIT_CODE_SPACE));
    if (code !== replacing) return code;
  }
}
