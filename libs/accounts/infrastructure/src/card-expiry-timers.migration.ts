import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The durable timer at which a card lapses (key: the external account id; issue 26 item 1). */
export const CARD_EXPIRY_TIMER = 'externalAccount.cardExpiry';

/**
 * Cards registered before cards lapsed on the project clock get their expiry timer here, as a new
 * registration does: due at the first instant (UTC) after the card's expiry month, for every card not
 * deleted that is still usable (pending or active). A card whose month ended already is due at once, and
 * becomes `invalid` (`card_expired`) on the accounts service's next timer poll; a timer that exists is left
 * as it is.
 */
export class AccountsCardExpiryTimers1700000002360 implements MigrationInterface {
  name = 'AccountsCardExpiryTimers1700000002360';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `INSERT INTO platform.timers (project_id, kind, key, payload, due_at)
       SELECT project_id, $1, id, jsonb_build_object('externalAccountId', id),
              make_timestamptz((details ->> 'expiryYear')::int, (details ->> 'expiryMonth')::int, 1, 0, 0, 0, 'UTC') + interval '1 month'
         FROM accounts.external_accounts
        WHERE type = 'card' AND deleted_at IS NULL AND status IN ('pending', 'active')
       ON CONFLICT (kind, key) DO NOTHING`,
      [CARD_EXPIRY_TIMER],
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    // The timers stay: cards registered since have theirs too, and one less would leave a card usable past its month.
    void runner;
  }
}
