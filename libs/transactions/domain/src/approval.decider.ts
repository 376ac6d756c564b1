// Four eyes on money (docs/operators.md, Four eyes): an operator's refund, complete-refund, mark-failed or retry
// of a transaction worth the project's threshold or more is a request that a second operator approves or
// rejects. One stream per request. It expires at its `expiresAt` on the project's clock: an expired request is
// still pending in its log and acts never. The requester cannot approve it; anyone may reject it, the requester
// included (a withdrawal). An approval, the action it lets run and that action's result commit together: an
// action refused (the transaction moved on meanwhile) leaves the request pending and changes nothing.
import { ApiError, type ApprovalRequested, type AuditActor, type TypedEvent } from '@mm/contracts';
import { type Decider, unknownCommand, unknownEvent } from '@mm/platform/decider';

export type ApprovalEvent = TypedEvent<
  'approval.requested' | 'approval.approved' | 'approval.rejected' | 'approval.executed'
>;

export type ApprovalCommand =
  | { type: 'RequestApproval'; request: ApprovalRequested }
  | { type: 'Approve'; by: AuditActor; at: string }
  | { type: 'Reject'; by: AuditActor; reason: string | null; at: string }
  | { type: 'RecordResult'; result: string; at: string };

export type ApprovalState =
  | { status: 'none' }
  | { status: 'pending'; request: ApprovalRequested }
  | {
      status: 'approved';
      request: ApprovalRequested;
      approvedBy: AuditActor;
      approvedAt: string;
      result: string | null;
      executedAt: string | null;
    }
  | {
      status: 'rejected';
      request: ApprovalRequested;
      rejectedBy: AuditActor;
      reason: string | null;
      rejectedAt: string;
    };

export type ExistingApproval = Exclude<ApprovalState, { status: 'none' }>;

export const approvalStreamId = (approvalId: string) => `approval-${approvalId}`;

/** Pending in its log and past its expiry at `at`: shown as expired, and never acts. */
export function isExpired(state: ApprovalState, at: string): boolean {
  return state.status === 'pending' && Date.parse(at) >= Date.parse(state.request.expiresAt);
}

function evolve(state: ApprovalState, event: ApprovalEvent): ApprovalState {
  switch (event.type) {
    case 'approval.requested':
      return { status: 'pending', request: event.data };
    case 'approval.approved':
      if (state.status !== 'pending') return state;
      return {
        status: 'approved',
        request: state.request,
        approvedBy: event.data.approvedBy,
        approvedAt: event.data.approvedAt,
        result: null,
        executedAt: null,
      };
    case 'approval.rejected':
      if (state.status !== 'pending') return state;
      return {
        status: 'rejected',
        request: state.request,
        rejectedBy: event.data.rejectedBy,
        reason: event.data.reason,
        rejectedAt: event.data.rejectedAt,
      };
    case 'approval.executed':
      if (state.status !== 'approved') return state;
      return { ...state, result: event.data.result, executedAt: event.data.executedAt };
    default:
      return unknownEvent(event, state);
  }
}

function event<T extends ApprovalEvent['type']>(type: T, data: ApprovalEvent['data'] & object): ApprovalEvent {
  return { type, data } as ApprovalEvent;
}

/** A request still open at `at`; else ApprovalNotPending saying what it is. */
function requirePending(state: ApprovalState, at: string): Extract<ApprovalState, { status: 'pending' }> {
  if (state.status === 'none') throw new ApiError('ApprovalNotFound');
  if (state.status !== 'pending') throw new ApiError('ApprovalNotPending', `the request was ${state.status} already`);
  if (isExpired(state, at))
    throw new ApiError('ApprovalNotPending', `the request expired at ${state.request.expiresAt}`);
  return state;
}

function decide(command: ApprovalCommand, state: ApprovalState): ApprovalEvent[] {
  switch (command.type) {
    case 'RequestApproval':
      // The same request again (a retried POST) records nothing new.
      return state.status === 'none' ? [event('approval.requested', command.request)] : [];
    case 'Approve': {
      const pending = requirePending(state, command.at);
      if (pending.request.requestedBy.subject === command.by.subject)
        throw new ApiError('OwnApprovalRefused', 'a second operator approves: ask another operator');
      const { approvalId, projectId } = pending.request;
      return [event('approval.approved', { approvalId, projectId, approvedBy: command.by, approvedAt: command.at })];
    }
    case 'Reject': {
      const { approvalId, projectId } = requirePending(state, command.at).request;
      return [
        event('approval.rejected', {
          approvalId,
          projectId,
          rejectedBy: command.by,
          reason: command.reason,
          rejectedAt: command.at,
        }),
      ];
    }
    case 'RecordResult':
      // Once: the action of an approved request runs once, and its result is kept as it first was.
      if (state.status !== 'approved' || state.result !== null) return [];
      return [
        event('approval.executed', {
          approvalId: state.request.approvalId,
          projectId: state.request.projectId,
          result: command.result,
          executedAt: command.at,
        }),
      ];
    default:
      return unknownCommand(command);
  }
}

export const approvalDecider: Decider<ApprovalCommand, ApprovalEvent, ApprovalState> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};

/** The operators' shape of a request (GET /admin/approvals), as it stands at `at`. */
export function approvalView(state: ExistingApproval, at: string): Record<string, unknown> {
  const r = state.request;
  const who = (a: AuditActor) => ({ subject: a.subject, name: a.name, role: a.role });
  const decided =
    state.status === 'approved'
      ? { by: state.approvedBy, at: state.approvedAt }
      : state.status === 'rejected'
        ? { by: state.rejectedBy, at: state.rejectedAt }
        : undefined;
  return {
    id: r.approvalId,
    object: 'approval',
    projectId: r.projectId,
    transactionId: r.transactionId,
    action: r.action,
    status: isExpired(state, at) ? 'expired' : state.status,
    reason: r.params.reason,
    ...(r.params.amount !== undefined ? { amount: r.params.amount } : {}),
    ...(r.params.to !== undefined ? { to: r.params.to } : {}),
    value: r.value,
    threshold: r.threshold,
    requestedBy: who(r.requestedBy),
    requestedAt: r.requestedAt,
    expiresAt: r.expiresAt,
    decidedBy: decided ? who(decided.by) : null,
    decidedAt: decided?.at ?? null,
    rejectionReason: state.status === 'rejected' ? state.reason : null,
    result: state.status === 'approved' ? state.result : null,
  };
}
