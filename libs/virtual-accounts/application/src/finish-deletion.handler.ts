// How a delete ends (spec: States / Virtual account; ADR 0032): the bank's answer to a close it accepted
// (closed: deleted; refused: failed), or, when that answer is lost, the delete sweeper reading the bank's
// account. A close the bank is still working on gets another look later. No close at all (the process
// stopped between the delete request and its call to the bank): the bank is asked again, and when it
// cannot close now the status before the delete is restored. So no delete stays `deleting`.
import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { virtualAccountDecider, virtualAccountStreamId, type VirtualAccountEvent } from '@mm/virtual-accounts/domain';
import { VirtualAccountBank, type CloseAnswer } from '@mm/virtual-accounts/infrastructure';
import { ProjectClock, TimerService, type DueTimer } from '@mm/platform/clock';
import { UnitOfWork } from '@mm/platform/database';
import { fold } from '@mm/platform/decider';
import { runCommand } from '@mm/platform/event-store';
import { VirtualAccountCommands } from './virtual-account.commands';
import { VirtualAccountsEventStore } from './virtual-accounts.event-store';

/** The delete sweeper (key: the account id and its due time): scheduled with the delete request. */
export const DELETE_SWEEP_TIMER = 'virtualAccount.deleteSweep';
/** How long after a delete request (and between its looks) the sweeper reads the bank's account, in project time. */
export const DELETE_SWEEP_SECONDS = 600;

@Injectable()
export class FinishDeletionHandler implements OnModuleInit {
  private readonly logger = new Logger('virtual-accounts');

  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: VirtualAccountsEventStore,
    private readonly commands: VirtualAccountCommands,
    private readonly bank: VirtualAccountBank,
    private readonly clock: ProjectClock,
    private readonly timers: TimerService,
  ) {}

  onModuleInit(): void {
    this.timers.on(DELETE_SWEEP_TIMER, (timer) => this.onSweep(timer));
    this.bank.onCloseAnswer((projectId, id, answer) => this.onCloseAnswer(projectId, id, answer));
  }

  /** Each look has a key of its own: a handler that re-used its own key would have its next look marked fired with it. */
  async scheduleSweep(projectId: string, id: string, at: string): Promise<void> {
    const due = new Date(Date.parse(at) + DELETE_SWEEP_SECONDS * 1000);
    await this.timers.schedule(projectId, DELETE_SWEEP_TIMER, `${id}@${due.toISOString()}`, due, {
      virtualAccountId: id,
    });
  }

  /** The bank's answer to a close it accepted: closed (deleted), or refused (failed). */
  private async onCloseAnswer(projectId: string, id: string, answer: CloseAnswer): Promise<void> {
    const at = (await this.clock.now(projectId)).toISOString();
    await runCommand(this.uow, () =>
      this.commands.handle(
        projectId,
        id,
        answer.closed
          ? { type: 'CompleteDeletion', projectId, by: 'bank', at }
          : { type: 'RefuseClose', projectId, failure: answer.failure, at },
      ),
    );
  }

  private async onSweep(timer: DueTimer): Promise<void> {
    const id = String(timer.payload.virtualAccountId);
    const projectId = timer.projectId;
    const state = fold(
      virtualAccountDecider,
      (await this.store.readStream(virtualAccountStreamId(id))) as unknown as VirtualAccountEvent[],
    );
    if (state.status !== 'deleting') return;
    const at = (await this.clock.now(projectId)).toISOString();
    const report = await this.bank.account(id);
    if (report?.status === 'closed') {
      await this.commands.handle(projectId, id, { type: 'CompleteDeletion', projectId, by: 'sweeper', at });
      return;
    }
    if (report?.close === 'refused') {
      await this.commands.handle(projectId, id, {
        type: 'RefuseClose',
        projectId,
        failure: { code: 'bank_refused', message: 'the bank refused to close the deposit account' },
        at,
      });
      return;
    }
    if (report?.close !== 'requested') {
      let answer: 'accepted' | 'unavailable' | 'unreached';
      try {
        answer = await this.bank.requestClose(projectId, id, state.label);
      } catch (error) {
        this.logger.warn(
          `virtual account ${id}: the delete sweeper did not reach the bank (${error instanceof Error ? error.message : String(error)}); it asks again at its next look`,
        );
        answer = 'unreached';
      }
      if (answer === 'unavailable') {
        await this.commands.handle(projectId, id, {
          type: 'RestoreAfterDeletion',
          projectId,
          reason: 'the bank cannot close the account now',
          at,
        });
        return;
      }
    }
    await this.scheduleSweep(projectId, id, at);
  }
}
