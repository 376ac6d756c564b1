// The destination a request names (spec: Virtual account, destination; API-CONTRACT: Virtual accounts): an
// external wallet, a custodial wallet of the customer, or a US bank account with the rail it is paid on,
// each resolved through the accounts port and checked as a quote's destination would be.
import { Injectable } from '@nestjs/common';
import {
  AccountsPort,
  ApiError,
  namedExternalAccount,
  type CustomerView,
  type VirtualAccountDestination,
} from '@mm/contracts';
import {
  bankDestination,
  payoutInstruction,
  walletExternalDestination,
  walletOmsDestination,
  type PayoutInput,
} from '@mm/virtual-accounts/domain';
import { isId } from '@mm/platform/ids';

export interface DestinationInput {
  type: string;
  externalAccountId?: string;
  walletId?: string;
  payout?: PayoutInput;
}

@Injectable()
export class DestinationResolver {
  constructor(private readonly accounts: AccountsPort) {}

  async resolve(
    projectId: string,
    customer: Pick<CustomerView, 'id'> & { name?: string },
    input: DestinationInput,
    field = 'destination',
  ): Promise<VirtualAccountDestination> {
    if (input.type !== 'bankUs' && input.payout !== undefined) {
      throw new ApiError(
        'VirtualAccountPayoutUnsupported',
        `${field}.payout: a ${input.type} destination receives usdc and takes no bank payout`,
      );
    }
    switch (input.type) {
      case 'walletExternal':
        if (input.externalAccountId === undefined)
          throw new ApiError(
            'InvalidRequest',
            `${field}.externalAccountId: is required for a walletExternal destination`,
          );
        if (input.walletId !== undefined)
          throw new ApiError(
            'InvalidRequest',
            `${field}.walletId: a walletExternal destination names an externalAccountId, not a walletId`,
          );
        return walletExternalDestination(
          customer.id,
          await namedExternalAccount(this.accounts, projectId, input.externalAccountId, field),
          field,
        );
      case 'walletOms': {
        if (input.walletId === undefined)
          throw new ApiError('InvalidRequest', `${field}.walletId: is required for a walletOms destination`);
        if (input.externalAccountId !== undefined)
          throw new ApiError(
            'InvalidRequest',
            `${field}.externalAccountId: a walletOms destination names a walletId, not an externalAccountId`,
          );
        if (!isId('wallet', input.walletId))
          throw new ApiError(
            'InvalidWalletID',
            `${field}.walletId: "${input.walletId.slice(0, 64)}" is not a wallet id (wlt_…)`,
          );
        return walletOmsDestination(
          { id: customer.id, name: customer.name ?? '' },
          await this.accounts.wallet(projectId, input.walletId),
          field,
        );
      }
      case 'bankUs': {
        if (input.externalAccountId === undefined)
          throw new ApiError('InvalidRequest', `${field}.externalAccountId: is required for a bankUs destination`);
        if (input.walletId !== undefined)
          throw new ApiError(
            'InvalidRequest',
            `${field}.walletId: a bankUs destination names an externalAccountId, not a walletId`,
          );
        if (input.payout === undefined)
          throw new ApiError(
            'InvalidRequest',
            `${field}.payout: is required for a bankUs destination (the rail it is paid on)`,
          );
        const payout = payoutInstruction(input.payout, `${field}.payout`);
        return bankDestination(
          customer.id,
          await namedExternalAccount(this.accounts, projectId, input.externalAccountId, field),
          payout,
          field,
        );
      }
      default:
        throw new ApiError('InvalidRequest', `${field}.type must be one of walletExternal, walletOms, bankUs`);
    }
  }
}
