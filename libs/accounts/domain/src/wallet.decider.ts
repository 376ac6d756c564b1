// A custodial wallet and its balance (spec: Wallet). Every movement is a
// double-entry posting whose entries sum to zero; a debit that would take the
// wallet below zero is refused.
import { ApiError, type EventPayloads, type LedgerEntry, type TypedEvent } from '@mm/contracts';
import { type Decider, unknownCommand, unknownEvent } from '@mm/platform/decider';
import { dec, toAmount, type DecimalValue } from '@mm/platform/money';

export type WalletEvent = TypedEvent<'wallet.provisioned' | 'wallet.credited' | 'wallet.debited'>;

export type WalletCommand =
  | {
      type: 'ProvisionWallet';
      walletId: string;
      projectId: string;
      customerId: string;
      asset: string;
      network: string;
      address: string;
      derivationIndex?: number;
      at: string;
    }
  | { type: 'CreditWallet'; postingId: string; amount: string; counterAccount: string; reason: string; at: string }
  | { type: 'DebitWallet'; postingId: string; amount: string; counterAccount: string; reason: string; at: string };

export type WalletState =
  | { status: 'none' }
  | {
      status: 'provisioned';
      walletId: string;
      projectId: string;
      asset: string;
      network: string;
      balance: string;
      postings: string[];
    };

export const walletAccount = (walletId: string) => `wallet:${walletId}`;
export const sandboxFundingAccount = (asset: string, network: string) => `sandbox-funding:${asset}:${network}`;
/** Where a transaction's money is while it moves: pulled from the source, paid on to the destination or back. */
export const transitAccount = (transactionId: string) => `transit:${transactionId}`;
/** Where money leaves the ledger for a rail (a bank, a card, a chain), and arrives from one. */
export const railAccount = (asset: string, network: string) => `rail:${asset}:${network}`;
/** The operator's own USDC on a chain: what reached its treasury from outside custody (docs/chain.md). */
export const operatorFloatAccount = (asset: string, network: string) => `float:${asset}:${network}`;
/** The project of the operator's own postings, which belong to no partner's project. */
export const OPERATOR_LEDGER_PROJECT = 'operator';
/** The conversion desk of one asset: a card buy's dollars in, its USDC out. */
export const conversionAccount = (asset: string) => `conversion:${asset}`;
/** One posting of each step of a transaction, so a repeated step posts nothing. */
export const transactionPostingId = (transactionId: string, step: string) => `${transactionId}:${step}`;

export type ProvisionedWallet = Extract<WalletState, { status: 'provisioned' }>;

function evolve(state: WalletState, event: WalletEvent): WalletState {
  switch (event.type) {
    case 'wallet.provisioned': {
      const d = event.data;
      return {
        status: 'provisioned',
        walletId: d.walletId,
        projectId: d.projectId,
        asset: d.asset,
        network: d.network,
        balance: '0',
        postings: [],
      };
    }
    case 'wallet.credited':
    case 'wallet.debited':
      return state.status === 'none'
        ? state
        : { ...state, balance: event.data.balance, postings: [...state.postings, event.data.postingId] };
    default:
      return unknownEvent(event, state);
  }
}

function event<T extends WalletEvent['type']>(type: T, data: EventPayloads[T]): WalletEvent {
  return { type, data } as WalletEvent;
}

function posting(walletId: string, counterAccount: string, signedAmount: string): LedgerEntry[] {
  return [
    { account: walletAccount(walletId), amount: toAmount(signedAmount, 18) },
    { account: counterAccount, amount: toAmount(dec(signedAmount).neg(), 18) },
  ];
}

type CommandOf<T extends WalletCommand['type']> = Extract<WalletCommand, { type: T }>;

function provisionWallet(command: CommandOf<'ProvisionWallet'>, state: WalletState): WalletEvent[] {
  if (state.status !== 'none') return [];
  const { type: _type, at, ...rest } = command;
  return [event('wallet.provisioned', { ...rest, createdAt: at })];
}

/** The posting's amount, or undefined for a posting the wallet has applied already (a posting is applied once). */
function postingAmount(
  command: CommandOf<'CreditWallet' | 'DebitWallet'>,
  state: ProvisionedWallet,
): DecimalValue | undefined {
  if (state.postings.includes(command.postingId)) return undefined;
  const amount = dec(command.amount);
  if (!amount.isFinite() || amount.lte(0)) throw new ApiError('InvalidAmount', 'amount must be greater than zero');
  return amount;
}

function creditWallet(command: CommandOf<'CreditWallet'>, state: ProvisionedWallet): WalletEvent[] {
  const amount = postingAmount(command, state);
  if (!amount) return [];
  const { walletId, projectId } = state;
  return [
    event('wallet.credited', {
      walletId,
      projectId,
      postingId: command.postingId,
      amount: toAmount(amount, 18),
      balance: toAmount(dec(state.balance).plus(amount), 18),
      entries: posting(walletId, command.counterAccount, command.amount),
      reason: command.reason,
      at: command.at,
    }),
  ];
}

/** Spec: Wallet: a debit that would take the wallet below zero is refused. */
function debitWallet(command: CommandOf<'DebitWallet'>, state: ProvisionedWallet): WalletEvent[] {
  const amount = postingAmount(command, state);
  if (!amount) return [];
  const { walletId, projectId } = state;
  const after = dec(state.balance).minus(amount);
  if (after.lt(0))
    throw new ApiError('InsufficientFunds', `the wallet holds ${toAmount(state.balance, 18)} ${state.asset}`);
  return [
    event('wallet.debited', {
      walletId,
      projectId,
      postingId: command.postingId,
      amount: toAmount(amount, 18),
      balance: toAmount(after, 18),
      entries: posting(walletId, command.counterAccount, amount.neg().toString()),
      reason: command.reason,
      at: command.at,
    }),
  ];
}

function requireWallet(state: WalletState): ProvisionedWallet {
  if (state.status === 'none') throw new ApiError('WalletNotFound');
  return state;
}

function decide(command: WalletCommand, state: WalletState): WalletEvent[] {
  switch (command.type) {
    case 'ProvisionWallet':
      return provisionWallet(command, state);
    case 'CreditWallet':
      return creditWallet(command, requireWallet(state));
    case 'DebitWallet':
      return debitWallet(command, requireWallet(state));
    default:
      return unknownCommand(command);
  }
}

export const walletDecider: Decider<WalletCommand, WalletEvent, WalletState> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};

export const walletStreamId = (walletId: string) => `wallet-${walletId}`;
