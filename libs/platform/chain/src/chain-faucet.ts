// The sandbox's faucet on a chain (docs/chain.md, docs/sandbox.md): the account of
// MM_CHAIN_<NETWORK>_FAUCET_PRIVATE_KEY pays the simulation routes' test USDC as a real transfer, which the
// chain watcher then credits like any deposit. Its nonces come from the node, counted in this process
// (viem's nonce manager): one process of a deployment should use a faucet key at a time.
import type { ChainClient } from './chain-client';
import { viem, viemAccounts, type Address, type Hex } from './viem';

export class ChainFaucet {
  private readonly wallet;

  constructor(
    private readonly client: ChainClient,
    privateKey: Hex,
  ) {
    const account = viemAccounts.privateKeyToAccount(privateKey, { nonceManager: viemAccounts.nonceManager });
    this.wallet = viem.createWalletClient({ account, transport: viem.http(client.settings.rpcUrl) });
  }

  get address(): Address {
    return this.wallet.account.address;
  }

  /** Sends `amount` (decimal units) of the token to an address; the transaction's hash once the node took it. */
  async send(to: string, amount: string): Promise<Hex> {
    const chainId = await this.client.chainId();
    const decimals = await this.client.decimals();
    const chain = viem.defineChain({
      id: chainId,
      name: this.client.network,
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [this.client.settings.rpcUrl] } },
    });
    return this.wallet.writeContract({
      chain,
      address: this.client.settings.usdcAddress,
      abi: viem.erc20Abi,
      functionName: 'transfer',
      args: [to as Address, viem.parseUnits(amount, decimals)],
    });
  }
}
