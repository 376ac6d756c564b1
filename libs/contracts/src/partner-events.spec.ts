import { partnerEventsFor, webhookEnvelope } from './partner-events';

describe('partner events (spec: Events / Catalog)', () => {
  it('announces an approved endorsement as updated, then active', () => {
    expect(partnerEventsFor('endorsement.approved')).toEqual(['endorsement.updated', 'endorsement.active']);
  });

  it('announces requests and rejections as updates', () => {
    expect(partnerEventsFor('endorsement.requested')).toEqual(['endorsement.updated']);
    expect(partnerEventsFor('endorsement.rejected')).toEqual(['endorsement.updated']);
  });

  it('announces a provisioned wallet', () => {
    expect(partnerEventsFor('wallet.provisioned')).toEqual(['wallet.provisioned']);
  });

  it('keeps credentials and ledger internals private', () => {
    for (const type of ['apiKey.created', 'apiKey.revoked', 'project.created', 'wallet.credited'])
      expect(partnerEventsFor(type)).toEqual([]);
  });
});

describe('the envelope (spec: Events / Envelope)', () => {
  const base = {
    deliveryId: 'whd_01m87bvejhfvptagftmmfq3bsy',
    eventId: 'evt_01m87bvejhfvptagg0v52webye',
    createdAt: '2026-03-02T15:00:00.180Z',
    occurredAt: '2026-03-02T15:00:00.000Z',
    data: { id: 'ext_1' },
  };

  it('names the fields an update changed (spec: Catalog, externalAccount.updated)', () => {
    expect(
      webhookEnvelope({ ...base, event: 'externalAccount.updated', sequence: 4, changedFields: ['label'] }),
    ).toEqual({
      id: base.deliveryId,
      event: 'externalAccount.updated',
      sequence: 4,
      createdAt: base.createdAt,
      occurredAt: base.occurredAt,
      changedFields: ['label'],
      data: base.data,
    });
  });
});
