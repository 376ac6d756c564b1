// The custodian of custodial wallets where their network runs on a chain (docs/chain.md): each wallet's
// address is derived from the custody seed at the next index of the wallets' BIP-44 account, and the index
// travels in the wallet's provisioning event. Elsewhere, and for balances (the ledger, which the chain watcher
// keeps level with the chain), the sandbox custodian answers.
import { Injectable } from '@nestjs/common';
import { ChainNetworks } from '@mm/platform/chain';
import { AccountsReadModels } from './accounts-read-models.repository';
import { SandboxCustodian, type ProvisionedAddress } from './sandbox-providers';

@Injectable()
export class ChainCustodian extends SandboxCustodian {
  constructor(
    private readonly chains: ChainNetworks,
    private readonly readModels: AccountsReadModels,
  ) {
    super();
  }

  override async provisionAddress(asset: string, network: string, walletId: string): Promise<ProvisionedAddress> {
    if (!this.chains.client(network)) return super.provisionAddress(asset, network, walletId);
    const derivationIndex = await this.readModels.nextWalletDerivationIndex();
    const address = this.chains.custody().address({ purpose: 'wallet', index: derivationIndex });
    // In the wallet's provisioning transaction: registered if and only if the wallet is made.
    await this.chains.registry.register({
      purpose: 'wallet',
      index: derivationIndex,
      network,
      address,
      ownerId: walletId,
    });
    return { address, derivationIndex };
  }
}
