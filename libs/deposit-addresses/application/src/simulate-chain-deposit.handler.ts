// Sandbox on a chain (docs/chain.md; docs/sandbox.md, "Deposit addresses"): the crypto-deposit simulation of
// an address whose network runs on a chain sends real test USDC from the network's faucet to the address.
// Nothing is recorded here: the chain watcher receives the transfer once confirmed, as it receives any, and
// the deposit's transaction follows then (its id is not known yet). The sender is the faucet.
import { Injectable } from '@nestjs/common';
import { ApiError } from '@mm/contracts';
import { ChainNetworks } from '@mm/platform/chain';
import { DepositAddressQueries } from './deposit-address.queries';
import type { DepositAddressDepositView } from './receive-deposit.handler';

@Injectable()
export class SimulateChainDepositHandler {
  constructor(
    private readonly chains: ChainNetworks,
    private readonly queries: DepositAddressQueries,
  ) {}

  /** Whether the address's network runs on a chain (the simulation then sends a real transfer). */
  async onChain(projectId: string, id: string): Promise<boolean> {
    // No network on a chain (npm start): nothing to read; the simulation reads the address itself.
    if (this.chains.onChain.length === 0) return false;
    const row = await this.queries.row(projectId, id);
    return this.chains.client(row.view.expectedSourceNetwork) !== undefined;
  }

  async deposit(
    projectId: string,
    id: string,
    input: { amount: string; senderAddress?: string },
  ): Promise<DepositAddressDepositView> {
    const { view } = await this.queries.row(projectId, id);
    const network = view.expectedSourceNetwork;
    if (!view.depositInstructions)
      throw new ApiError(
        'DepositAddressNotProvisioned',
        `the address is ${view.status}: it has no address on chain yet`,
      );
    const faucet = this.chains.faucet(network);
    if (!faucet)
      throw new ApiError(
        'Conflict',
        `${network} runs on a chain without a sandbox faucet (MM_CHAIN_${network.toUpperCase()}_FAUCET_PRIVATE_KEY): send test USDC to ${view.depositInstructions.address}`,
      );
    if (input.senderAddress !== undefined && input.senderAddress.toLowerCase() !== faucet.address.toLowerCase())
      throw new ApiError(
        'InvalidRequest',
        `senderAddress: on a chain the simulated deposit comes from the faucet ${faucet.address}; omit senderAddress, or send from your own wallet`,
      );
    const txHash = await faucet.send(view.depositInstructions.address, input.amount);
    return {
      object: 'depositAddressDeposit',
      depositAddressId: id,
      amount: input.amount,
      asset: view.expectedSourceAsset,
      network,
      senderAddress: faucet.address,
      txHash,
      transactionId: null,
    };
  }
}
