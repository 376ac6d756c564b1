import { ApiError } from '@mm/contracts';
import { specFor } from '@mm/platform/decider';
import { customerDecider, type CustomerEvent } from './customer.decider';

const given = specFor(customerDecider);
const at = '2026-01-01T00:00:00.000Z';
const create = {
  type: 'CreateCustomer' as const,
  customerId: 'cst_1',
  projectId: 'prj_1',
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: null,
  endorsements: ['basic' as const, 'usd' as const],
  at,
};
const created: CustomerEvent = {
  type: 'customer.created',
  data: {
    customerId: 'cst_1',
    projectId: 'prj_1',
    type: 'individual',
    firstName: 'Ada',
    lastName: 'Lovelace',
    email: null,
    createdAt: at,
  },
};
const requested = (name: 'basic' | 'usd' | 'cryptoCustody'): CustomerEvent => ({
  type: 'endorsement.requested',
  data: { customerId: 'cst_1', projectId: 'prj_1', name, requestedAt: at },
});
const isError = (name: string) => (e: unknown) => e instanceof ApiError && e.errorName === name;

describe('customer decider', () => {
  it('creates the customer and requests each endorsement once', () =>
    given([])
      .when({ ...create, endorsements: ['basic', 'usd', 'basic'] })
      .then([created, requested('basic'), requested('usd')]));

  it('approves a pending endorsement', () =>
    given([created, requested('usd')])
      .when({ type: 'ApproveEndorsement', name: 'usd', at })
      .then([
        {
          type: 'endorsement.approved',
          data: { customerId: 'cst_1', projectId: 'prj_1', name: 'usd', previousStatus: 'pending', approvedAt: at },
        },
      ]));

  it('does not request an endorsement that is pending or active', () => {
    given([created, requested('usd')])
      .when({ type: 'RequestEndorsement', name: 'usd', at })
      .then([]);
  });

  it('lets a rejected endorsement be requested again', () =>
    given([
      created,
      requested('usd'),
      {
        type: 'endorsement.rejected',
        data: {
          customerId: 'cst_1',
          projectId: 'prj_1',
          name: 'usd',
          previousStatus: 'pending',
          reason: 'r',
          rejectedAt: at,
        },
      },
    ])
      .when({ type: 'RequestEndorsement', name: 'usd', at })
      .then([requested('usd')]));

  it('ignores an approval for an endorsement that is not pending', () =>
    given([created]).when({ type: 'ApproveEndorsement', name: 'basic', at }).then([]));

  it('refuses commands for a customer that does not exist', () =>
    given([]).when({ type: 'RequestEndorsement', name: 'basic', at }).thenThrows(isError('CustomerNotFound')));
});
