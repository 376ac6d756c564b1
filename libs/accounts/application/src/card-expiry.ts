// Cards lapse on the project clock (issue 26 item 1): a card is valid through the
// last day of its expiry month, and a durable timer due at the first instant of the
// next month makes one that is still usable `invalid` with `card_expired`
// (`externalAccount.statusChanged`, then `externalAccount.updated` naming
// `failure`). Quotes and acceptance then refuse it as any unusable account, and
// a leg that needs it is refused when its rail answers. The timer is scheduled
// with the registration (ExternalAccountCommands); cards registered
// before it existed got theirs from a migration (AccountsCardExpiryTimers). A
// clock advanced past the expiry, by however much, fires it once.
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { TimerService, type DueTimer } from '@mm/platform/clock';
import { CARD_EXPIRY_TIMER } from './external-account.commands';
import { ExternalAccountsService } from './external-accounts.service';

@Injectable()
export class CardExpiry implements OnModuleInit {
  constructor(
    private readonly externalAccounts: ExternalAccountsService,
    private readonly timers: TimerService,
  ) {}

  onModuleInit(): void {
    this.timers.on(CARD_EXPIRY_TIMER, (timer) => this.onExpiry(timer));
  }

  private onExpiry(timer: DueTimer): Promise<void> {
    return this.externalAccounts.expireCard(timer.projectId, timer.key);
  }
}
