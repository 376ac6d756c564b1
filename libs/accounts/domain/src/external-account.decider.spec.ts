// Spec: States/External account, and Events operation to event tie 2.
import { ApiError, type ExternalAccountFailure } from '@mm/contracts';
import { specFor } from '@mm/platform/decider';
import {
  CARD_EXPIRED,
  cardExpiresAt,
  externalAccountDecider,
  mergeMetadata,
  type ExternalAccountEvent,
} from './external-account.decider';

const given = specFor(externalAccountDecider);
const at = '2026-01-01T00:00:00.000Z';
const ids = { externalAccountId: 'ext_1', projectId: 'prj_1' };
const registration = {
  ...ids,
  customerId: 'cst_1',
  counterpartyId: null,
  details: {
    holderName: 'Ada Lovelace',
    bankName: null,
    routingNumber: '021000021',
    accountNumberLast4: '6789',
    accountType: 'checking' as const,
  },
  supportedDestinations: [{ asset: 'usd', network: 'ach' }],
  providerReference: 'pvd_1',
  screenedNames: ['Ada Lovelace'],
  label: null,
  metadata: { ref: 'a' },
  provisioningDeadline: '2026-01-01T00:15:00.000Z',
};
const created: ExternalAccountEvent = {
  type: 'externalAccount.created',
  data: { ...registration, type: 'bankUs', createdAt: at },
};
const failure: ExternalAccountFailure = { code: 'provider_rejected', message: 'no' };
const statusChanged = (
  status: 'active' | 'failed' | 'invalid',
  previousStatus: string,
  f: ExternalAccountFailure | null = null,
): ExternalAccountEvent =>
  ({
    type: 'externalAccount.statusChanged',
    data: { ...ids, status, previousStatus, failure: f, at },
  }) as ExternalAccountEvent;
const activated = [
  statusChanged('active', 'pending'),
  { type: 'externalAccount.verified', data: { ...ids, at } } as ExternalAccountEvent,
];
const deleted: ExternalAccountEvent = { type: 'externalAccount.deleted', data: { ...ids, at } };
const isError = (name: string) => (e: unknown) => e instanceof ApiError && e.errorName === name;

describe('external account decider', () => {
  it('registers the account as pending (externalAccount.created)', () =>
    given([])
      .when({ type: 'RegisterExternalAccount', instrumentType: 'bankUs', ...registration, at })
      .then([created]));

  it('pending -> active when provisioning completes: statusChanged then verified', () =>
    given([created]).when({ type: 'CompleteProvisioning', at }).then(activated));

  it('pending -> failed when the provider rejects: statusChanged, declined, and updated naming failure', () =>
    given([created])
      .when({ type: 'FailProvisioning', failure, at })
      .then([
        statusChanged('failed', 'pending', failure),
        { type: 'externalAccount.declined', data: { ...ids, failure, at } },
        { type: 'externalAccount.updated', data: { ...ids, changedFields: ['failure'], failure, at } },
      ]));

  it('ignores a late verdict on an account that is no longer pending', () => {
    given([created, ...activated])
      .when({ type: 'FailProvisioning', failure, at })
      .then([]);
    given([created, ...activated])
      .when({ type: 'CompleteProvisioning', at })
      .then([]);
    given([created, deleted]).when({ type: 'CompleteProvisioning', at }).then([]);
  });

  it('any -> invalid always fires statusChanged', () => {
    const closed = { code: 'account_closed', message: 'closed' };
    given([created, ...activated])
      .when({ type: 'InvalidateExternalAccount', failure: closed, at })
      .then([
        statusChanged('invalid', 'active', closed),
        { type: 'externalAccount.updated', data: { ...ids, changedFields: ['failure'], failure: closed, at } },
      ]);
    given([created])
      .when({ type: 'InvalidateExternalAccount', failure: closed, at })
      .then([
        statusChanged('invalid', 'pending', closed),
        expect.objectContaining({ type: 'externalAccount.updated' }),
      ]);
    given([created, statusChanged('invalid', 'pending', closed)])
      .when({ type: 'InvalidateExternalAccount', failure: closed, at })
      .then([]);
  });

  it('updates label and metadata, naming only what changed', () => {
    given([created])
      .when({ type: 'UpdateExternalAccount', label: 'Payroll', metadata: { ref: 'a', extra: 'b' }, at })
      .then([
        {
          type: 'externalAccount.updated',
          data: {
            ...ids,
            changedFields: ['label', 'metadata'],
            label: 'Payroll',
            metadata: { ref: 'a', extra: 'b' },
            at,
          },
        },
      ]);
    given([created])
      .when({ type: 'UpdateExternalAccount', label: null, metadata: { ref: 'a' }, at })
      .then([]);
  });

  it('refuses changes to a deleted account, and a second delete', () => {
    given([created, deleted])
      .when({ type: 'UpdateExternalAccount', label: 'x', at })
      .thenThrows(isError('ExternalAccountNotFound'));
    given([created, deleted])
      .when({ type: 'DeleteExternalAccount', at })
      .thenThrows(isError('ExternalAccountNotFound'));
    given([]).when({ type: 'DeleteExternalAccount', at }).thenThrows(isError('ExternalAccountNotFound'));
  });

  describe('a card lapses when its expiry month ends (issue 26 item 1)', () => {
    const billingAddress = {
      addressLine1: '1 Market St',
      addressLine2: null,
      city: 'San Francisco',
      state: 'CA',
      country: 'US',
      zipCode: '94105',
    };
    const card: ExternalAccountEvent = {
      type: 'externalAccount.created',
      data: {
        ...registration,
        type: 'card',
        details: {
          holderName: 'Ada Lovelace',
          brand: 'mastercard',
          last4: '4444',
          expiryMonth: 12,
          expiryYear: 2026,
          billingAddress,
        },
        supportedDestinations: [{ asset: 'usd', network: 'card' }],
        screenedNames: [],
        createdAt: at,
      },
    };
    const expired = { code: CARD_EXPIRED, message: 'the card expired at the end of 12/2026' };
    const lapsed = '2027-01-01T00:00:00.000Z';

    it('is valid through the last day of its month (UTC): it lapses at the first instant of the next', () => {
      expect(cardExpiresAt({ month: 12, year: 2026 }).toISOString()).toBe('2027-01-01T00:00:00.000Z');
      expect(cardExpiresAt({ month: 2, year: 2028 }).toISOString()).toBe('2028-03-01T00:00:00.000Z');
    });

    it('active -> invalid with card_expired: statusChanged, then updated naming failure', () =>
      given([card, ...activated])
        .when({ type: 'ExpireCard', at: lapsed })
        .then([
          {
            type: 'externalAccount.statusChanged',
            data: { ...ids, status: 'invalid', previousStatus: 'active', failure: expired, at: lapsed },
          },
          {
            type: 'externalAccount.updated',
            data: { ...ids, changedFields: ['failure'], failure: expired, at: lapsed },
          },
        ]));

    it('a card still pending lapses too', () =>
      given([card])
        .when({ type: 'ExpireCard', at: lapsed })
        .then([
          expect.objectContaining({
            type: 'externalAccount.statusChanged',
            data: expect.objectContaining({ previousStatus: 'pending', status: 'invalid' }),
          }),
          expect.objectContaining({ type: 'externalAccount.updated' }),
        ]));

    it('changes nothing before its month ended, a second time, or on a card failed, invalid or deleted', () => {
      given([card, ...activated])
        .when({ type: 'ExpireCard', at: '2026-12-31T23:59:59.999Z' })
        .then([]);
      given([card, ...activated, statusChanged('invalid', 'active', expired)])
        .when({ type: 'ExpireCard', at: lapsed })
        .then([]);
      given([card, statusChanged('failed', 'pending', failure)])
        .when({ type: 'ExpireCard', at: lapsed })
        .then([]);
      given([card, ...activated, statusChanged('invalid', 'active', { code: 'account_closed', message: 'closed' })])
        .when({ type: 'ExpireCard', at: lapsed })
        .then([]);
      given([card, ...activated, deleted])
        .when({ type: 'ExpireCard', at: lapsed })
        .then([]);
    });

    it('never applies to an account that is not a card', () =>
      given([created, ...activated])
        .when({ type: 'ExpireCard', at: lapsed })
        .then([]));
  });

  it('merges metadata: null or "" removes a key', () => {
    expect(mergeMetadata({ a: '1', b: '2' }, { b: null, c: '3', a: '' })).toEqual({ c: '3' });
  });

  it("PATCH metadata null removes every key, as Stripe's empty metadata does (issue 42, item 5)", () => {
    given([created])
      .when({ type: 'UpdateExternalAccount', metadata: null, at })
      .then([{ type: 'externalAccount.updated', data: { ...ids, changedFields: ['metadata'], metadata: {}, at } }]);
    expect(mergeMetadata({ a: '1' }, null)).toEqual({});
  });
});
