// The synchronous ports between services (ADR 0019), for every module of the
// application: the owner's own implementation when it runs in this process
// (joining the caller's database transaction), else an HTTP client of the
// owner's internal routes. What one process saves by batching across a port's
// boundary lives in its in-process adapter here, never in the port's contract.
import { Global, Module, type DynamicModule, type FactoryProvider, type Provider, type Type } from '@nestjs/common';
import {
  AccountsPort,
  GatewayPort,
  PORT_CALLERS,
  PORT_ROUTES,
  QuotesPort,
  serviceUrlVariable,
  TransactionsPort,
  type AcceptedQuote,
  type AuditEntryInput,
  type AcceptQuoteRequest,
  type CashInTransactionRequest,
  type DepositAddressDepositReceived,
  type VirtualAccountDepositReceived,
  type CustomerView,
  type ExternalAccountView,
  type ProjectSettings,
  type PullFundsRequest,
  type PullFundsResult,
  type ServiceName,
  type WalletView,
} from '@mm/contracts';
import { AccountsModule } from '@mm/accounts/api';
import { WalletsService } from '@mm/accounts/application';
import { GatewayModule } from '@mm/gateway/api';
import { internalToken, PlatformConfig } from '@mm/platform/config';
import { UnitOfWork } from '@mm/platform/database';
import { InternalClient, settleIdempotencyClaim } from '@mm/platform/http';
import { QuotingModule } from '@mm/quoting/api';
import { AcceptQuoteHandler } from '@mm/quoting/application';
import { TransactionsModule } from '@mm/transactions/api';

class HttpAccountsPort extends AccountsPort {
  constructor(private readonly client: InternalClient) {
    super();
  }
  customer(projectId: string, customerId: string): Promise<CustomerView> {
    return this.client.call(PORT_ROUTES.accounts.customer, { projectId, customerId });
  }
  wallet(projectId: string, walletId: string): Promise<WalletView> {
    return this.client.call(PORT_ROUTES.accounts.wallet, { projectId, walletId });
  }
  externalAccount(projectId: string, externalAccountId: string): Promise<ExternalAccountView> {
    return this.client.call(PORT_ROUTES.accounts.externalAccount, { projectId, externalAccountId });
  }
  pullFunds(projectId: string, request: PullFundsRequest): Promise<PullFundsResult> {
    return this.client.call(PORT_ROUTES.accounts.pullFunds, { projectId, ...request });
  }
  async registeredWallet(
    projectId: string,
    customerId: string,
    network: string,
    address: string,
  ): Promise<ExternalAccountView | null> {
    const answer = await this.client.call<{ wallet: ExternalAccountView | null }>(
      PORT_ROUTES.accounts.registeredWallet,
      { projectId, customerId, network, address },
    );
    return answer.wallet;
  }
}

/**
 * The quotes port in one process: the quoting service's acceptance, joining the caller's transaction. The
 * transactions service, its caller, pulls the quote's amount from its source wallet next in that transaction;
 * with the accounts service here too, the wallet's lock, its ends and the ledger check are read with the
 * acceptance's own reads (after the quote's lock, as when they were read one after another), and the pull
 * takes them (ADR 0054): one round trip less. A card source pulls from no wallet.
 */
class InProcessQuotesPort extends QuotesPort {
  constructor(
    private readonly acceptance: AcceptQuoteHandler,
    private readonly wallets: WalletsService | undefined,
  ) {
    super();
  }
  accept(projectId: string, request: AcceptQuoteRequest): Promise<AcceptedQuote> {
    const wallets = this.wallets;
    return this.acceptance.accept(
      projectId,
      request,
      wallets &&
        ((source) => {
          if (source.type === 'card') return;
          wallets.preparePull(projectId, { transactionId: request.transactionId, walletId: String(source.details.id) });
        }),
    );
  }
  release(projectId: string, request: AcceptQuoteRequest): Promise<void> {
    return this.acceptance.release(projectId, request);
  }
}

class HttpQuotesPort extends QuotesPort {
  constructor(private readonly client: InternalClient) {
    super();
  }
  accept(projectId: string, request: AcceptQuoteRequest): Promise<AcceptedQuote> {
    return this.client.call(PORT_ROUTES.quoting.accept, { projectId, ...request });
  }
  async release(projectId: string, request: AcceptQuoteRequest): Promise<void> {
    await this.client.call(PORT_ROUTES.quoting.release, { projectId, ...request });
  }
}

class HttpGatewayPort extends GatewayPort {
  constructor(private readonly client: InternalClient) {
    super();
  }
  project(projectId: string): Promise<ProjectSettings> {
    return this.client.call(PORT_ROUTES.gateway.project, { projectId });
  }
  async apiKeyActive(apiKey: string, projectId: string): Promise<boolean> {
    const answer = await this.client.call<{ active: boolean }>(PORT_ROUTES.gateway.apiKeyActive, { apiKey, projectId });
    return answer.active;
  }
  appendAudit(entry: AuditEntryInput): Promise<{ id: string }> {
    // The bodies as JSON text: a request as deep as the public parser allows is still one level under its limit here.
    return this.client.call(PORT_ROUTES.gateway.appendAudit, {
      ...entry,
      request: JSON.stringify(entry.request ?? null),
      before: JSON.stringify(entry.before ?? null),
      after: JSON.stringify(entry.after ?? null),
    });
  }
}

class HttpTransactionsPort extends TransactionsPort {
  constructor(private readonly client: InternalClient) {
    super();
  }
  createForCashIn(projectId: string, deposit: CashInTransactionRequest): Promise<{ transactionId: string }> {
    return this.client.call(PORT_ROUTES.transactions.createForCashIn, { projectId, deposit });
  }
  createForDepositAddress(
    projectId: string,
    deposit: DepositAddressDepositReceived,
  ): Promise<{ transactionId: string }> {
    return this.client.call(PORT_ROUTES.transactions.createForDepositAddress, { projectId, deposit });
  }
  createForVirtualAccount(
    projectId: string,
    deposit: VirtualAccountDepositReceived,
  ): Promise<{ transactionId: string }> {
    return this.client.call(PORT_ROUTES.transactions.createForVirtualAccount, { projectId, deposit });
  }
  unfinishedTransactions(projectId: string, transactionIds: string[]): Promise<string[]> {
    return this.client.call(PORT_ROUTES.transactions.unfinishedTransactions, { projectId, transactionIds });
  }
  heldForDestination(projectId: string, transactionIds: string[]): Promise<string[]> {
    return this.client.call(PORT_ROUTES.transactions.heldForDestination, { projectId, transactionIds });
  }
}

function client(config: PlatformConfig, uow: UnitOfWork, owner: ServiceName): InternalClient {
  // Every service knows the gateway's address already (it verifies tokens against its JWKS).
  const variable = (owner === 'gateway' ? 'MM_GATEWAY_URL' : serviceUrlVariable(owner)) as keyof PlatformConfig;
  const url = config[variable];
  if (typeof url !== 'string')
    throw new Error(`${String(variable)} is not set: this service calls the ${owner} service's port`);
  return new InternalClient(url, internalToken(config), config.MM_GATEWAY_UPSTREAM_TIMEOUT_MS, () =>
    settleIdempotencyClaim(uow),
  );
}

/** How one port is bound. */
interface PortBinding {
  /** The port's abstract class. */
  port: abstract new () => object;
  /** The owner's module, which provides the port in one process unless `local` makes it. */
  module: Type;
  /** The port's HTTP client, across processes. */
  remote: (c: InternalClient) => object;
  /** The port's in-process adapter, made from the services of this process. */
  local?: (services: readonly ServiceName[]) => Omit<FactoryProvider, 'provide'>;
}

const PORTS: Record<'accounts' | 'quoting' | 'gateway' | 'transactions', PortBinding> = {
  accounts: { port: AccountsPort, module: AccountsModule, remote: (c: InternalClient) => new HttpAccountsPort(c) },
  quoting: {
    port: QuotesPort,
    module: QuotingModule,
    remote: (c: InternalClient) => new HttpQuotesPort(c),
    local: (services) =>
      services.includes('accounts')
        ? {
            useFactory: (acceptance: AcceptQuoteHandler, wallets: WalletsService) =>
              new InProcessQuotesPort(acceptance, wallets),
            inject: [AcceptQuoteHandler, WalletsService],
          }
        : {
            useFactory: (acceptance: AcceptQuoteHandler) => new InProcessQuotesPort(acceptance, undefined),
            inject: [AcceptQuoteHandler],
          },
  },
  gateway: { port: GatewayPort, module: GatewayModule, remote: (c: InternalClient) => new HttpGatewayPort(c) },
  transactions: {
    port: TransactionsPort,
    module: TransactionsModule,
    remote: (c: InternalClient) => new HttpTransactionsPort(c),
  },
};

@Global()
@Module({})
export class PortsModule {
  /**
   * The ports the services here call: the owner's own module, or the port's in-process adapter, when the
   * owner runs in this process (joining the caller's database transaction), else an HTTP client of the
   * owner's internal routes. Nothing is wired
   * for a port nobody here calls, so no URL is needed for it.
   */
  static forServices(services: readonly ServiceName[]): DynamicModule {
    const called = new Set(
      (Object.keys(PORT_CALLERS) as ServiceName[]).filter((owner) =>
        PORT_CALLERS[owner].some((caller) => services.includes(caller)),
      ),
    );
    const imports: DynamicModule['imports'] = [];
    const providers: Provider[] = [];
    const exports: DynamicModule['exports'] = [];
    for (const owner of Object.keys(PORTS) as Array<keyof typeof PORTS>) {
      if (!called.has(owner)) continue;
      const { port, module, remote, local } = PORTS[owner];
      if (services.includes(owner)) {
        imports.push(module);
        exports.push(module);
        if (local) {
          providers.push({ provide: port, ...local(services) });
          exports.push(port);
        }
      } else {
        providers.push({
          provide: port,
          useFactory: (config: PlatformConfig, uow: UnitOfWork) => remote(client(config, uow, owner)),
          inject: [PlatformConfig, UnitOfWork],
        });
        exports.push(port);
      }
    }
    return { module: PortsModule, imports, providers, exports };
  }
}
