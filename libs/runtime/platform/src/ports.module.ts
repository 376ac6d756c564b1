// The synchronous ports between services (ADR 0019), for every module of the
// application: the owner's own implementation when it runs in this process
// (joining the caller's database transaction), else an HTTP client of the
// owner's internal routes.
import { Global, Module, type DynamicModule, type Provider } from '@nestjs/common';
import {
  AccountsPort,
  PORT_ROUTES,
  QuotesPort,
  serviceUrlVariable,
  type AcceptedQuote,
  type AcceptQuoteRequest,
  type CustomerView,
  type ExternalAccountView,
  type PullFundsRequest,
  type PullFundsResult,
  type ServiceName,
  type WalletView,
} from '@mm/contracts';
import { AccountsModule } from '@mm/accounts/api';
import { internalToken, PlatformConfig } from '@mm/platform/config';
import { InternalClient } from '@mm/platform/http';
import { QuotingModule } from '@mm/quoting/api';

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

function client(config: PlatformConfig, owner: ServiceName): InternalClient {
  const variable = serviceUrlVariable(owner) as keyof PlatformConfig;
  const url = config[variable];
  if (typeof url !== 'string') throw new Error(`${String(variable)} is not set: this service calls the ${owner} service's port`);
  return new InternalClient(url, internalToken(config), config.MM_GATEWAY_UPSTREAM_TIMEOUT_MS);
}

@Global()
@Module({})
export class PortsModule {
  /** `callers`: whether any service here calls ports at all (else nothing is wired, and no URL is needed). */
  static forServices(services: readonly ServiceName[]): DynamicModule {
    const callers = services.some((s) => s === 'quoting' || s === 'transactions' || s === 'cash-in');
    if (!callers) return { module: PortsModule };
    const local = (owner: ServiceName) => services.includes(owner);
    // Only the transactions service calls the quotes port; the cash-in service alone needs no quoting URL.
    const remoteQuotes = !local('quoting') && local('transactions');
    const providers: Provider[] = [
      ...(local('accounts') ? [] : [{ provide: AccountsPort, useFactory: (config: PlatformConfig) => new HttpAccountsPort(client(config, 'accounts')), inject: [PlatformConfig] }]),
      ...(remoteQuotes ? [{ provide: QuotesPort, useFactory: (config: PlatformConfig) => new HttpQuotesPort(client(config, 'quoting')), inject: [PlatformConfig] }] : []),
    ];
    return {
      module: PortsModule,
      imports: [...(local('accounts') ? [AccountsModule] : []), ...(local('quoting') ? [QuotingModule] : [])],
      providers,
      exports: [...(local('accounts') ? [AccountsModule] : [AccountsPort]), ...(local('quoting') ? [QuotingModule] : remoteQuotes ? [QuotesPort] : [])],
    };
  }
}
