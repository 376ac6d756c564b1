// The external accounts a leg needs, asked of the accounts service, which owns them and reads them as they
// are now (its port, in both modes): a deletion or invalidation it has answered is seen by the very next
// check, never a copy that lags behind (ADR 0025; ADR 0056).
import { Injectable } from '@nestjs/common';
import { AccountsPort, ApiError, type LegFailure, type TransactionCreated } from '@mm/contracts';
import {
  legAccounts,
  unusableAccountFailure,
  type AccountStanding,
  type LegAccount,
  type NewLeg,
} from '@mm/transactions/domain';

@Injectable()
export class LegAccountChecks {
  constructor(private readonly accounts: AccountsPort) {}

  /** The first external account a leg of this record needs that is no longer usable, with the leg's failure; undefined while all are usable. */
  async unusable(
    projectId: string,
    record: TransactionCreated,
    leg: Pick<NewLeg, 'kind'>,
    when: 'start' | 'answer',
  ): Promise<{ account: LegAccount; failure: LegFailure } | undefined> {
    for (const account of legAccounts(record, leg)) {
      const standing: AccountStanding = await this.accounts
        .externalAccount(projectId, account.id)
        .catch((error: unknown) => {
          // It existed when the quote was accepted or the deposit made: not found now means deleted since. Any
          // other error (the accounts service down) fails the caller (a timer fires again later; a request is refused).
          if (error instanceof ApiError && error.errorName === 'ExternalAccountNotFound') return 'deleted' as const;
          throw error;
        });
      const failure = unusableAccountFailure(leg, account, standing, when);
      if (failure) return { account, failure };
    }
    return undefined;
  }
}
