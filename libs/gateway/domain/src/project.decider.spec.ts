import { ApiError } from '@mm/contracts';
import { specFor } from '@mm/platform/decider';
import { NO_FEATURES, projectDecider, type ProjectEvent } from './project.decider';

const given = specFor(projectDecider);
const at = '2026-01-01T00:00:00.000Z';
const created: ProjectEvent = {
  type: 'project.created',
  data: { projectId: 'prj_1', name: 'acme', features: NO_FEATURES, createdAt: at },
};
const keyCreated: ProjectEvent = {
  type: 'apiKey.created',
  data: { projectId: 'prj_1', apiKey: 'sk_sdbx_a', mode: 'sdbx', secretHash: 'h', createdAt: at },
};
const isError = (name: string) => (e: unknown) => e instanceof ApiError && e.errorName === name;

describe('project decider', () => {
  it('creates a project', () =>
    given([])
      .when({ type: 'CreateProject', projectId: 'prj_1', name: 'acme', features: NO_FEATURES, at })
      .then([created]));

  it('records nothing when the project already exists', () =>
    given([created])
      .when({ type: 'CreateProject', projectId: 'prj_1', name: 'acme', features: NO_FEATURES, at })
      .then([]));

  it('issues an API key on an existing project only', () => {
    given([created])
      .when({ type: 'IssueApiKey', apiKey: 'sk_sdbx_a', mode: 'sdbx', secretHash: 'h', at })
      .then([keyCreated]);
    given([])
      .when({ type: 'IssueApiKey', apiKey: 'sk_sdbx_a', mode: 'sdbx', secretHash: 'h', at })
      .thenThrows(isError('ProjectNotFound'));
  });

  it('revokes a key once; revoking again records nothing', () => {
    const revoked: ProjectEvent = {
      type: 'apiKey.revoked',
      data: { projectId: 'prj_1', apiKey: 'sk_sdbx_a', revokedAt: at },
    };
    given([created, keyCreated]).when({ type: 'RevokeApiKey', apiKey: 'sk_sdbx_a', at }).then([revoked]);
    given([created, keyCreated, revoked]).when({ type: 'RevokeApiKey', apiKey: 'sk_sdbx_a', at }).then([]);
  });

  it('refuses to revoke a key the project does not have', () =>
    given([created]).when({ type: 'RevokeApiKey', apiKey: 'sk_sdbx_other', at }).thenThrows(isError('ApiKeyNotFound')));

  it('merges feature and limit changes', () =>
    given([created])
      .when({ type: 'UpdateProject', changes: { features: { cashPickup: true } }, at })
      .then([
        {
          type: 'project.updated',
          data: { projectId: 'prj_1', changes: { features: { cashPickup: true } }, updatedAt: at },
        },
      ]));

  describe('limits', () => {
    const limitsSet = (limits: Record<string, string | null>): ProjectEvent => ({
      type: 'project.updated',
      data: { projectId: 'prj_1', changes: { limits }, updatedAt: at },
    });
    const update = (limits: Record<string, string | null>) => ({
      type: 'UpdateProject' as const,
      changes: { limits },
      at,
    });
    const refusal = (cause: RegExp) => (e: unknown) =>
      isError('InvalidRequest')(e) && cause.test((e as ApiError).causeText ?? '');

    it('refuses a per-transaction minimum above the maximum, compared as decimals', () => {
      given([created])
        .when(update({ perTransactionMin: '500.00', perTransactionMax: '100.00' }))
        .thenThrows(refusal(/^limits.perTransactionMin 500.00 must not exceed limits.perTransactionMax 100.00$/));
      given([created])
        .when(update({ perTransactionMin: '100.01', perTransactionMax: '100' }))
        .thenThrows(isError('InvalidRequest'));
      given([created])
        .when(update({ perTransactionMin: '9', perTransactionMax: '10' }))
        .then([limitsSet({ perTransactionMin: '9', perTransactionMax: '10' })]);
      given([created])
        .when(update({ perTransactionMin: '10.00', perTransactionMax: '10' }))
        .then([limitsSet({ perTransactionMin: '10.00', perTransactionMax: '10' })]);
    });

    it("checks one side sent against the project's other side", () => {
      const stored = limitsSet({ perTransactionMin: '50', perTransactionMax: '100' });
      given([created, stored])
        .when(update({ perTransactionMin: '500' }))
        .thenThrows(refusal(/limits.perTransactionMax 100 \(the project's current value\)/));
      given([created, stored])
        .when(update({ perTransactionMax: '10' }))
        .thenThrows(refusal(/^limits.perTransactionMin 50 \(the project's current value\) must not exceed/));
      given([created, stored])
        .when(update({ perTransactionMax: null, perTransactionMin: '500' }))
        .then([limitsSet({ perTransactionMax: null, perTransactionMin: '500' })]);
    });

    it('refuses a daily bank payout cap above the monthly one', () =>
      given([created, limitsSet({ monthlyBankPayoutCap: '1000' })])
        .when(update({ dailyBankPayoutCap: '5000' }))
        .thenThrows(refusal(/dailyBankPayoutCap 5000 must not exceed limits.monthlyBankPayoutCap 1000/)));
  });
});
