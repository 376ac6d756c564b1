import { ApiError, type ApprovalRequested } from '@mm/contracts';
import { specFor } from '@mm/platform/decider';
import {
  approvalDecider,
  approvalView,
  isExpired,
  type ApprovalEvent,
  type ExistingApproval,
} from './approval.decider';

const given = specFor(approvalDecider);
const olga = { subject: 'olga', name: 'Olga Operator', role: 'operator', via: 'sso' };
const otto = { subject: 'otto', name: 'Otto Operator', role: 'operator', via: 'sso' };
const request: ApprovalRequested = {
  approvalId: 'apr_1',
  projectId: 'prj_1',
  transactionId: 'txn_1',
  action: 'refund',
  params: { reason: 'the customer asked' },
  value: '150.00',
  threshold: '100.00',
  requestedBy: olga,
  requestedAt: '2026-01-01T00:00:00.000Z',
  expiresAt: '2026-01-02T00:00:00.000Z',
};
const requested: ApprovalEvent = { type: 'approval.requested', data: request };
const at = '2026-01-01T12:00:00.000Z';
const approved: ApprovalEvent = {
  type: 'approval.approved',
  data: { approvalId: 'apr_1', projectId: 'prj_1', approvedBy: otto, approvedAt: at },
};
const isError = (name: string, cause?: RegExp) => (e: unknown) =>
  e instanceof ApiError && e.errorName === name && (!cause || cause.test(e.message));

describe('approval decider (four eyes)', () => {
  it('records a request once', () => {
    given([]).when({ type: 'RequestApproval', request }).then([requested]);
    given([requested]).when({ type: 'RequestApproval', request }).then([]);
  });

  it('is approved by another operator, never by its requester', () => {
    given([requested]).when({ type: 'Approve', by: otto, at }).then([approved]);
    given([requested]).when({ type: 'Approve', by: olga, at }).thenThrows(isError('OwnApprovalRefused'));
  });

  it('is decided once: approving or rejecting a decided request is refused', () => {
    given([requested, approved]).when({ type: 'Approve', by: otto, at }).thenThrows(isError('ApprovalNotPending'));
    given([requested, approved])
      .when({ type: 'Reject', by: otto, reason: null, at })
      .thenThrows(isError('ApprovalNotPending', /approved/));
  });

  it('may be rejected by anyone, its requester included (a withdrawal)', () =>
    given([requested])
      .when({ type: 'Reject', by: olga, reason: 'withdrawn', at })
      .then([
        {
          type: 'approval.rejected',
          data: { approvalId: 'apr_1', projectId: 'prj_1', rejectedBy: olga, reason: 'withdrawn', rejectedAt: at },
        },
      ]));

  it('acts never once expired, at its expiry to the millisecond', () => {
    const expiry = request.expiresAt;
    given([requested])
      .when({ type: 'Approve', by: otto, at: expiry })
      .thenThrows(isError('ApprovalNotPending', /expired/));
    given([requested])
      .when({ type: 'Reject', by: otto, reason: null, at: expiry })
      .thenThrows(isError('ApprovalNotPending'));
    const state = approvalDecider.evolve(approvalDecider.initialState(), requested);
    expect(isExpired(state, '2026-01-01T23:59:59.999Z')).toBe(false);
    expect(approvalView(state as ExistingApproval, expiry).status).toBe('expired');
  });

  it("keeps the approved action's first result only", () => {
    const result = { type: 'RecordResult' as const, result: 'refunding', at };
    const executed: ApprovalEvent = {
      type: 'approval.executed',
      data: { approvalId: 'apr_1', projectId: 'prj_1', result: 'refunding', executedAt: at },
    };
    given([requested, approved]).when(result).then([executed]);
    given([requested, approved, executed]).when(result).then([]);
    given([requested]).when(result).then([]);
  });

  it('is unknown until requested', () =>
    given([]).when({ type: 'Approve', by: otto, at }).thenThrows(isError('ApprovalNotFound')));
});
