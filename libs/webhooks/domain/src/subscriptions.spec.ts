// Spec: Events (subscriptions), Events / Catalog; ADR 0027: only events of the
// resources this version offers can be subscribed to, and a refusal says which
// names are valid, or where they are listed.
import { PARTNER_EVENT_CATALOGUE, PLANNED_PARTNER_EVENTS } from '@mm/contracts';
import { subscriptionsProblem, unknownSubscriptions } from './subscriptions';

describe('subscriptions of this version', () => {
  it('accepts every event of the resources this version offers, and *', () => {
    expect(unknownSubscriptions(['*', ...PARTNER_EVENT_CATALOGUE])).toEqual([]);
    expect(
      subscriptionsProblem(['*', 'transaction.statusChanged', 'transaction.cryptoToFiat.underReview', 'webhook.test']),
    ).toBeUndefined();
  });

  it('refuses the events this version does not send yet, saying so', () => {
    for (const name of PLANNED_PARTNER_EVENTS) {
      expect(unknownSubscriptions([name, 'cashIn.created'])).toEqual([name]);
      expect(subscriptionsProblem([name])).toMatch(/ this version does not (send|offer) yet/);
    }
  });

  it('accepts the lifecycle events of virtual accounts (issue 20)', () => {
    const lifecycle = [
      'created',
      'provisioned',
      'active',
      'frozen',
      'closed',
      'deleted',
      'failed',
      'statusChanged',
      'updated',
    ].map((e) => `virtualAccount.${e}`);
    expect(unknownSubscriptions(lifecycle)).toEqual([]);
    expect(PLANNED_PARTNER_EVENTS.filter((e) => lifecycle.includes(e))).toEqual([]);
  });

  it('accepts the events of deposit addresses (issue 19)', () => {
    const lifecycle = ['created', 'active', 'frozen', 'closed', 'failed', 'statusChanged', 'updated'].map(
      (e) => `depositAddress.${e}`,
    );
    expect(unknownSubscriptions(lifecycle)).toEqual([]);
    expect(PLANNED_PARTNER_EVENTS.filter((e) => lifecycle.includes(e))).toEqual([]);
    const legs = [
      'deposit_address.crypto_deposit.needs_attribution',
      'deposit_address.ach_payout.returned',
      'deposit_address.intl_wire_payout.settled',
      'deposit_address.crypto_payout.settled',
    ];
    expect(unknownSubscriptions(legs)).toEqual([]);
  });

  it('says where the valid names are listed, and names the events of the resource a wrong name is about', () => {
    const problem = subscriptionsProblem(['transaction.created'])!;
    expect(problem).toContain('"transaction.created" is not an event of this version');
    expect(problem).toContain(
      'The transaction events are transaction.statusChanged, transaction.fiatToCrypto.underReview, transaction.cryptoToFiat.underReview, transaction.cryptoToCrypto.underReview.',
    );
    expect(problem).toContain('the Events page of the documentation, and `webhooks` in GET /openapi.json');
    expect(subscriptionsProblem(['cashin.created'])).toContain(
      'The cashIn events are cashIn.created, cashIn.completed, cashIn.expired, cashIn.updated.',
    );
    expect(subscriptionsProblem(['no.such.event'])).toMatch(
      /^subscriptions: "no\.such\.event" is not an event of this version\. Subscribe to "\*" or to names of this version: .*Events page/,
    );
  });

  it('names at most three refused names, each once', () => {
    const problem = subscriptionsProblem(['a', 'b', 'a', 'c', 'd', 'e'])!;
    expect(problem).toMatch(/^subscriptions: "a" is not an event of this version; "b" .*; "c" .*; and 2 more\./);
  });
});
