import { partnerEventsFor } from './partner-events';

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
    for (const type of ['apiKey.created', 'apiKey.revoked', 'project.created', 'wallet.credited']) expect(partnerEventsFor(type)).toEqual([]);
  });
});
