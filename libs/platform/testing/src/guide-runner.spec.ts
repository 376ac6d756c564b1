// What the guides' run reads of the answers it met: the events, and the states of transactions only, wherever they are in an
// answer (a list's `data`, an object's field), not of their legs, so that a guide is held to every transaction state its requests met.
import { statesAndEventsMet } from './guide-runner';

describe('the transaction states a guide run met', () => {
  it('are the status and sub-status of every transaction in every answer, and of nothing else, and every event', () => {
    const met = statesAndEventsMet([
      {
        id: 'txn_1',
        status: 'processing',
        subStatus: null,
        legs: [{ id: 'txn_1.1', kind: 'payout', status: 'pending' }],
      },
      { data: [{ id: 'txn_2', status: 'failed', subStatus: 'failed.returnedToSender' }], hasMore: false },
      { id: 'ci_1', status: 'completed', subStatus: 'settled', transaction: { id: 'txn_3', status: 'completed' } },
      { id: 'ext_1', status: 'active' },
      { data: [{ id: 'whd_1', event: 'wallet.provisioned', payload: { eventType: 'transaction.statusChanged' } }] },
      'plain text',
      undefined,
    ]);
    expect({ statuses: [...met.statuses].sort(), subStatuses: [...met.subStatuses], events: [...met.events] }).toEqual({
      statuses: ['completed', 'failed', 'processing'],
      subStatuses: ['failed.returnedToSender'],
      events: ['wallet.provisioned', 'transaction.statusChanged'],
    });
  });
});
