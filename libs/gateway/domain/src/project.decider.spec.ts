import { ApiError } from '@mm/contracts';
import { specFor } from '@mm/platform/decider';
import { NO_FEATURES, projectDecider, type ProjectCommand, type ProjectEvent } from './project.decider';

const given = specFor(projectDecider);
const at = '2026-01-01T00:00:00.000Z';
const created: ProjectEvent = {
  type: 'project.created',
  data: { projectId: 'prj_1', name: 'acme', features: NO_FEATURES, fourEyesThreshold: '0.00', createdAt: at },
};
const createCommand: ProjectCommand = {
  type: 'CreateProject',
  projectId: 'prj_1',
  name: 'acme',
  features: NO_FEATURES,
  fourEyesThreshold: '0.00',
  at,
};
const keyCreated: ProjectEvent = {
  type: 'apiKey.created',
  data: {
    projectId: 'prj_1',
    apiKey: 'sk_sdbx_a',
    mode: 'sdbx',
    secretHash: 'h',
    name: 'orders',
    scopes: ['customers:read'],
    createdAt: at,
  },
};
const issue: ProjectCommand = {
  type: 'IssueApiKey',
  key: { apiKey: 'sk_sdbx_a', mode: 'sdbx', secretHash: 'h' },
  name: 'orders',
  scopes: ['customers:read'],
  at,
};
const later = '2026-01-01T00:10:00.000Z';
const roll: ProjectCommand = {
  type: 'RollApiKey',
  apiKey: 'sk_sdbx_a',
  successor: { apiKey: 'sk_sdbx_b', mode: 'sdbx', secretHash: 'h2' },
  expiresAt: later,
  at,
};
const rolled: ProjectEvent = {
  type: 'apiKey.rolled',
  data: { projectId: 'prj_1', apiKey: 'sk_sdbx_a', successor: 'sk_sdbx_b', expiresAt: later, rolledAt: at },
};
const isError = (name: string) => (e: unknown) => e instanceof ApiError && e.errorName === name;

describe('project decider', () => {
  it('creates a project', () => given([]).when(createCommand).then([created]));

  it('records nothing when the project already exists', () => given([created]).when(createCommand).then([]));

  it('issues an API key on an existing project only', () => {
    given([created]).when(issue).then([keyCreated]);
    given([]).when(issue).thenThrows(isError('ProjectNotFound'));
  });

  it('rolls a key into a new one with its name and scopes, the old one expiring when asked', () =>
    given([created, keyCreated])
      .when(roll)
      .then([
        {
          type: 'apiKey.created',
          data: { ...keyCreated.data, apiKey: 'sk_sdbx_b', secretHash: 'h2' } as ProjectEvent['data'],
        } as ProjectEvent,
        rolled,
      ]));

  it('rolls a key once: a rolled, expired or revoked key is refused, naming why', () => {
    const refused = (cause: RegExp) => (e: unknown) =>
      isError('ApiKeyNotRollable')(e) && cause.test(String((e as ApiError).causeText));
    given([created, keyCreated, rolled])
      .when(roll)
      .thenThrows(refused(/rolled already, into sk_sdbx_b/));
    given([created, keyCreated, rolled])
      .when({ ...roll, at: later })
      .thenThrows(refused(/expired/));
    given([
      created,
      keyCreated,
      { type: 'apiKey.revoked', data: { projectId: 'prj_1', apiKey: 'sk_sdbx_a', revokedAt: at } },
    ])
      .when(roll)
      .thenThrows(refused(/revoked/));
    given([created]).when(roll).thenThrows(isError('ApiKeyNotFound'));
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

  it('keeps the four-eyes threshold it was made with until a change sets it, null included', () => {
    const threshold = (...commands: ProjectCommand[]) => {
      let state = projectDecider.initialState();
      for (const command of commands)
        for (const e of projectDecider.decide(command, state)) state = projectDecider.evolve(state, e);
      return state.status === 'active' ? state.fourEyesThreshold : 'none';
    };
    const create: ProjectCommand = { ...createCommand, fourEyesThreshold: null };
    const set = (fourEyesThreshold: string | null): ProjectCommand => ({
      type: 'UpdateProject',
      changes: { fourEyesThreshold },
      at,
    });
    expect(threshold(create)).toBeNull();
    expect(threshold(createCommand)).toBe('0.00');
    expect(threshold(create, set('500.00'))).toBe('500.00');
    expect(
      threshold(create, set('500.00'), { type: 'UpdateProject', changes: { features: { cashPickup: true } }, at }),
    ).toBe('500.00');
    expect(threshold(createCommand, set(null))).toBeNull();
  });

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
