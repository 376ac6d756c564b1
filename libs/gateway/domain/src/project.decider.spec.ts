import { ApiError } from '@mm/contracts';
import { specFor } from '@mm/platform/decider';
import { NO_FEATURES, projectDecider, type ProjectEvent } from './project.decider';

const given = specFor(projectDecider);
const at = '2026-01-01T00:00:00.000Z';
const created: ProjectEvent = { type: 'project.created', data: { projectId: 'prj_1', name: 'acme', features: NO_FEATURES, createdAt: at } };
const keyCreated: ProjectEvent = {
  type: 'apiKey.created',
  data: { projectId: 'prj_1', apiKey: 'sk_sdbx_a', mode: 'sdbx', secretHash: 'h', createdAt: at },
};
const isError = (name: string) => (e: unknown) => e instanceof ApiError && e.errorName === name;

describe('project decider', () => {
  it('creates a project', () =>
    given([]).when({ type: 'CreateProject', projectId: 'prj_1', name: 'acme', features: NO_FEATURES, at }).then([created]));

  it('records nothing when the project already exists', () =>
    given([created]).when({ type: 'CreateProject', projectId: 'prj_1', name: 'acme', features: NO_FEATURES, at }).then([]));

  it('issues an API key on an existing project only', () => {
    given([created]).when({ type: 'IssueApiKey', apiKey: 'sk_sdbx_a', mode: 'sdbx', secretHash: 'h', at }).then([keyCreated]);
    given([]).when({ type: 'IssueApiKey', apiKey: 'sk_sdbx_a', mode: 'sdbx', secretHash: 'h', at }).thenThrows(isError('ProjectNotFound'));
  });

  it('revokes a key once; revoking again records nothing', () => {
    const revoked: ProjectEvent = { type: 'apiKey.revoked', data: { projectId: 'prj_1', apiKey: 'sk_sdbx_a', revokedAt: at } };
    given([created, keyCreated]).when({ type: 'RevokeApiKey', apiKey: 'sk_sdbx_a', at }).then([revoked]);
    given([created, keyCreated, revoked]).when({ type: 'RevokeApiKey', apiKey: 'sk_sdbx_a', at }).then([]);
  });

  it('refuses to revoke a key the project does not have', () =>
    given([created]).when({ type: 'RevokeApiKey', apiKey: 'sk_sdbx_other', at }).thenThrows(isError('ApiKeyNotFound')));

  it('merges feature and limit changes', () =>
    given([created])
      .when({ type: 'UpdateProject', changes: { features: { cashPickup: true } }, at })
      .then([{ type: 'project.updated', data: { projectId: 'prj_1', changes: { features: { cashPickup: true } }, updatedAt: at } }]));
});
