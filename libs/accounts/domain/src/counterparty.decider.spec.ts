// Spec: Counterparty (name composed from the structured fields; taxId write-only).
import { ApiError } from '@mm/contracts';
import { specFor } from '@mm/platform/decider';
import { counterpartyDecider, counterpartyName, type CounterpartyEvent } from './counterparty.decider';

const given = specFor(counterpartyDecider);
const at = '2026-01-01T00:00:00.000Z';
const fields = {
  firstName: 'Grace',
  lastName: 'Hopper',
  businessName: null,
  email: null,
  phone: null,
  taxIdProvided: false,
  address: null,
};
const create = {
  type: 'CreateCounterparty' as const,
  counterpartyId: 'cpty_1',
  projectId: 'prj_1',
  customerId: 'cst_1',
  entityType: 'individual' as const,
  ...fields,
  at,
};
const created: CounterpartyEvent = {
  type: 'counterparty.created',
  data: {
    counterpartyId: 'cpty_1',
    projectId: 'prj_1',
    customerId: 'cst_1',
    entityType: 'individual',
    ...fields,
    name: 'Grace Hopper',
    createdAt: at,
  },
};
const isError = (name: string) => (e: unknown) => e instanceof ApiError && e.errorName === name;

describe('counterparty decider', () => {
  it('creates an individual with a composed name', () => given([]).when(create).then([created]));

  it('composes a business name from businessName', () =>
    expect(counterpartyName('business', { firstName: null, lastName: null, businessName: ' Acme Ltd ' })).toBe(
      'Acme Ltd',
    ));

  it('refuses names that do not fit the entity type', () => {
    given([])
      .when({ ...create, lastName: null })
      .thenThrows(isError('CounterpartyFieldsInvalid'));
    given([])
      .when({ ...create, businessName: 'Acme' })
      .thenThrows(isError('CounterpartyFieldsInvalid'));
    given([])
      .when({ ...create, entityType: 'business', firstName: null, lastName: null })
      .thenThrows(isError('CounterpartyFieldsInvalid'));
    given([created])
      .when({ type: 'UpdateCounterparty', changes: { firstName: null }, at })
      .thenThrows(isError('CounterpartyFieldsInvalid'));
  });

  it('recomposes the name on update and names the changed fields', () =>
    given([created])
      .when({ type: 'UpdateCounterparty', changes: { lastName: 'Murray Hopper', email: null }, at })
      .then([
        {
          type: 'counterparty.updated',
          data: {
            counterpartyId: 'cpty_1',
            projectId: 'prj_1',
            changedFields: ['lastName'],
            changes: { lastName: 'Murray Hopper' },
            name: 'Grace Murray Hopper',
            at,
          },
        },
      ]));

  it('counts a new tax id as a change, though the value is never kept', () =>
    given([created])
      .when({ type: 'UpdateCounterparty', changes: {}, taxIdReplaced: true, at })
      .then([
        {
          type: 'counterparty.updated',
          data: {
            counterpartyId: 'cpty_1',
            projectId: 'prj_1',
            changedFields: ['taxIdProvided'],
            changes: { taxIdProvided: true },
            name: 'Grace Hopper',
            at,
          },
        },
      ]));

  it('deletes once; a deleted counterparty is not found', () => {
    given([created])
      .when({ type: 'DeleteCounterparty', at })
      .then([{ type: 'counterparty.deleted', data: { counterpartyId: 'cpty_1', projectId: 'prj_1', at } }]);
    const deleted: CounterpartyEvent = {
      type: 'counterparty.deleted',
      data: { counterpartyId: 'cpty_1', projectId: 'prj_1', at },
    };
    given([created, deleted]).when({ type: 'DeleteCounterparty', at }).thenThrows(isError('CounterpartyNotFound'));
    given([created, deleted])
      .when({ type: 'UpdateCounterparty', changes: { email: 'a@b.co' }, at })
      .thenThrows(isError('CounterpartyNotFound'));
  });
});
