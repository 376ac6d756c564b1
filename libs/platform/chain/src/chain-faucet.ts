// The sandbox's faucet on a chain (docs/chain.md, docs/sandbox.md): the account of
// MM_CHAIN_<NETWORK>_FAUCET_PRIVATE_KEY pays the simulation routes' test USDC as a real transfer, which the
// chain watcher then credits like any deposit. Several processes send from it (the accounts service's wallet
// fundings, the deposit-addresses service's deposits, and every replica of each), and a node refuses a nonce
// that is taken already or runs ahead of the next one. So a process sends one transfer at a time, each at the
// nonce the node counts for the account with its pool (`pending`), and a transfer whose nonce another process
// took meanwhile is signed again at the next one.
import type { ChainClient } from './chain-client';
import { viem, viemAccounts, type Address, type Hex } from './viem';

/** Attempts at a transfer whose nonce other senders keep taking first; between them a short random pause. */
const ATTEMPTS = 20;
const PAUSE_MS = 25;

/**
 * A node's refusal of the nonce: another transaction of the account holds it (mined, or in the pool at the same
 * fees), or it runs ahead of the account's next. Never our own transfer: sends are not retried by the transport,
 * so a refusal is of the one attempt that was refused, and nothing of it was taken.
 */
function nonceTaken(error: unknown): boolean {
  const text = error instanceof Error ? `${error.message} ${String(error.cause ?? '')}` : String(error);
  return /nonce|underpriced/i.test(text) && !/already known/i.test(text);
}

export class ChainFaucet {
  private readonly wallet;
  /** This process's sends, one after another. */
  private sending: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly client: ChainClient,
    privateKey: Hex,
  ) {
    const account = viemAccounts.privateKeyToAccount(privateKey);
    // No retries here: a send answered late and sent again could take effect twice, at two nonces.
    this.wallet = viem.createWalletClient({ account, transport: viem.http(client.settings.rpcUrl, { retryCount: 0 }) });
  }

  get address(): Address {
    return this.wallet.account.address;
  }

  /** Sends `amount` (decimal units) of the token to an address; the transaction's hash once the node took it. */
  send(to: string, amount: string): Promise<Hex> {
    const send = () => this.sendNow(to, amount);
    const sent = this.sending.then(send, send);
    this.sending = sent.catch(() => undefined);
    return sent;
  }

  private async sendNow(to: string, amount: string): Promise<Hex> {
    const chainId = await this.client.chainId();
    const decimals = await this.client.decimals();
    const chain = viem.defineChain({
      id: chainId,
      name: this.client.network,
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [this.client.settings.rpcUrl] } },
    });
    for (let attempt = 1; ; attempt++) {
      const nonce = await this.client.client.getTransactionCount({ address: this.address, blockTag: 'pending' });
      try {
        return await this.wallet.writeContract({
          chain,
          nonce,
          address: this.client.settings.usdcAddress,
          abi: viem.erc20Abi,
          functionName: 'transfer',
          args: [to as Address, viem.parseUnits(amount, decimals)],
        });
      } catch (error) {
        if (attempt >= ATTEMPTS || !nonceTaken(error)) throw error;
        // Random, so that two processes taking turns at the same nonce fall out of step.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * PAUSE_MS * Math.min(attempt, 4)));
      }
    }
  }
}
