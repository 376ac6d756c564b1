// The bank partner that holds virtual accounts, and the price of US dollars in
// what deposits are delivered in, behind ports (ARCHITECTURE: external parties
// sit behind provider ports; ADR 0032). The sandbox bank keeps its accounts in
// this service's schema (virtual_accounts.bank_accounts), so that nothing it
// was asked survives only in memory: it opens an account a few seconds of
// project time after the request, and closes one a few seconds after it
// accepted the close, on durable timers. Magic labels choose its answers
// (docs/sandbox.md). Account numbers are written here and in the account's
// events only: never in a log line.
import { randomBytes, randomInt } from 'node:crypto';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { SANDBOX_USD_PRICE, type InboundRail, type VirtualAccountBankDetails } from '@mm/contracts';
import { ProjectClock, TimerService, type DueTimer } from '@mm/platform/clock';
import { UnitOfWork } from '@mm/platform/database';
import type { ProvisioningOutcome } from '@mm/virtual-accounts/domain';

export interface OpenAccountRequest {
  virtualAccountId: string;
  projectId: string;
  /** The customer's name: the account's holder. */
  holderName: string;
  label: string | null;
}

/** The bank's answer when asked to close an account: it took the request (and answers later), or cannot now. */
export type CloseRequestAnswer = 'accepted' | 'unavailable';

/** The bank's answer to a close it accepted, when it arrives. */
export type CloseAnswer = { closed: true } | { closed: false; failure: { code: string; message: string } };

/** The bank's account as it reports it when asked (the sweeper reads it). */
export interface BankAccountReport {
  /** open, or closed by the bank. */
  status: 'open' | 'closed';
  /** The close it was asked for: none, one it is still working on, or one it refused. */
  close: 'none' | 'requested' | 'refused';
}

export type CloseAnswerHandler = (projectId: string, virtualAccountId: string, answer: CloseAnswer) => Promise<void>;

export abstract class VirtualAccountBank {
  /** Seconds of project time the bank takes to open the account. */
  abstract provisioningDelaySeconds(request: OpenAccountRequest): number;
  /** Opens the deposit account (once: asked again, it answers the same account). */
  abstract open(request: OpenAccountRequest): Promise<ProvisioningOutcome>;
  /** Asks the bank to close the account; its answer to an accepted request comes later, to the handler. */
  abstract requestClose(projectId: string, virtualAccountId: string, label: string | null): Promise<CloseRequestAnswer>;
  /** Reads the bank's account; undefined when the bank never opened it. */
  abstract account(virtualAccountId: string): Promise<BankAccountReport | undefined>;
  /** Where the bank's answers to accepted closes go. */
  abstract onCloseAnswer(handler: CloseAnswerHandler): void;
  /** The reference the bank gives an inbound transfer on this rail. */
  abstract inboundReference(rail: InboundRail, at: Date): string;
}

/** A label that makes the sandbox bank refuse to open the account. */
export const PROVISIONING_FAILURE_LABEL = 'ProvisioningFails';
/** A label that makes the sandbox bank take an hour of project time to open the account. */
export const PROVISIONING_SLOW_LABEL = 'ProvisioningSlow';
/** The sandbox bank cannot close the account now: the DELETE answers 503 with Retry-After. */
export const CLOSE_UNAVAILABLE_LABEL = 'CloseUnavailable';
/** The sandbox bank takes the close, then refuses it when it answers: the account is failed. */
export const CLOSE_REFUSED_LABEL = 'CloseRefused';
/** The sandbox bank closes the account but its answer never arrives: the sweeper finds it closed. */
export const CLOSE_ANSWER_LOST_LABEL = 'CloseAnswerLost';
/**
 * The first close request never reaches the sandbox bank (as when the service stops between recording the
 * delete and asking the bank): the sweeper finds no close at the bank and asks again.
 */
export const CLOSE_REQUEST_LOST_LABEL = 'CloseRequestLost';

/** How long the sandbox bank takes, in project time. */
export const SANDBOX_OPEN_SECONDS = 2;
export const SANDBOX_SLOW_OPEN_SECONDS = 3600;
export const SANDBOX_CLOSE_SECONDS = 3;
/** Retry-After of a close the bank cannot take now. */
export const CLOSE_RETRY_AFTER_SECONDS = 60;

/** The sandbox bank's own timer: it answers an accepted close (key: the account id). */
export const BANK_CLOSE_TIMER = 'virtualAccountBank.close';

export const SANDBOX_BANK_NAME = 'Meridian Sandbox Bank';
export const SANDBOX_BANK_BIC = 'MRDNUS33XXX';

/** The ABA check digit of an 8-digit routing prefix: 3, 7, 1 weights, the sum a multiple of 10. */
export function abaCheckDigit(prefix: string): string {
  const weights = [3, 7, 1, 3, 7, 1, 3, 7];
  const sum = [...prefix].reduce((total, digit, i) => total + Number(digit) * weights[i], 0);
  return String((10 - (sum % 10)) % 10);
}

/** Whether a 9-digit routing number passes the ABA checksum. */
export function isAbaRoutingNumber(value: string): boolean {
  return /^\d{9}$/.test(value) && abaCheckDigit(value.slice(0, 8)) === value[8];
}

/** The sandbox bank's routing number (a Federal Reserve routing symbol of the New York district, with its check digit). */
export const SANDBOX_ROUTING_NUMBER = `02600959${abaCheckDigit('02600959')}`;

const digits = (n: number) => Array.from({ length: n }, () => String(randomInt(10))).join('');

interface BankAccountRow {
  virtual_account_id: string;
  project_id: string;
  holder_name: string;
  account_number: string;
  routing_number: string;
  status: 'open' | 'closed';
  close_request: 'requested' | 'closed' | 'refused' | null;
  close_label: string | null;
  lost_close_requests: number;
}

@Injectable()
export class SandboxVirtualAccountBank extends VirtualAccountBank implements OnModuleInit {
  private answer?: CloseAnswerHandler;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly clock: ProjectClock,
    private readonly timers: TimerService,
  ) {
    super();
  }

  onModuleInit(): void {
    this.timers.on(BANK_CLOSE_TIMER, (timer) => this.answerClose(timer));
  }

  onCloseAnswer(handler: CloseAnswerHandler): void {
    this.answer = handler;
  }

  provisioningDelaySeconds(request: OpenAccountRequest): number {
    return request.label === PROVISIONING_SLOW_LABEL ? SANDBOX_SLOW_OPEN_SECONDS : SANDBOX_OPEN_SECONDS;
  }

  async open(request: OpenAccountRequest): Promise<ProvisioningOutcome> {
    if (request.label === PROVISIONING_FAILURE_LABEL) {
      return {
        failure: { code: 'bank_rejected', message: 'the bank could not open a deposit account for this customer' },
      };
    }
    // Ten digits, never a leading zero; kept by the bank, so that asking again answers the same account.
    await this.uow.query(
      `INSERT INTO virtual_accounts.bank_accounts (virtual_account_id, project_id, holder_name, account_number, routing_number, status, opened_at)
       VALUES ($1, $2, $3, $4, $5, 'open', now()) ON CONFLICT (virtual_account_id) DO NOTHING`,
      [
        request.virtualAccountId,
        request.projectId,
        request.holderName,
        `${1 + randomInt(9)}${digits(9)}`,
        SANDBOX_ROUTING_NUMBER,
      ],
    );
    const row = (await this.row(request.virtualAccountId))!;
    const bankDetails: VirtualAccountBankDetails = {
      bankName: SANDBOX_BANK_NAME,
      accountHolderName: row.holder_name,
      accountNumber: row.account_number,
      routingNumber: row.routing_number,
      bic: SANDBOX_BANK_BIC,
    };
    return { bankDetails };
  }

  async requestClose(projectId: string, virtualAccountId: string, label: string | null): Promise<CloseRequestAnswer> {
    if (label === CLOSE_UNAVAILABLE_LABEL) return 'unavailable';
    const answer = await this.uow.run(async (): Promise<CloseRequestAnswer | 'lost'> => {
      const row = await this.row(virtualAccountId, true);
      if (!row) return 'unavailable';
      // A close already taken (or done) is taken again: the bank answers it once.
      if (row.close_request !== null && row.close_request !== 'refused') return 'accepted';
      if (label === CLOSE_REQUEST_LOST_LABEL && row.lost_close_requests === 0) {
        await this.uow.query(
          `UPDATE virtual_accounts.bank_accounts SET lost_close_requests = lost_close_requests + 1 WHERE virtual_account_id = $1`,
          [virtualAccountId],
        );
        return 'lost';
      }
      await this.uow.query(
        `UPDATE virtual_accounts.bank_accounts SET close_request = 'requested', close_label = $2, close_requested_at = now() WHERE virtual_account_id = $1`,
        [virtualAccountId, label],
      );
      const now = await this.clock.now(projectId);
      await this.timers.schedule(
        projectId,
        BANK_CLOSE_TIMER,
        virtualAccountId,
        new Date(now.getTime() + SANDBOX_CLOSE_SECONDS * 1000),
        { virtualAccountId },
      );
      return 'accepted';
    });
    if (answer === 'lost') throw new Error('the close request did not reach the bank');
    return answer;
  }

  async account(virtualAccountId: string): Promise<BankAccountReport | undefined> {
    const row = await this.row(virtualAccountId);
    if (!row) return undefined;
    return {
      status: row.status,
      close: row.close_request === 'requested' ? 'requested' : row.close_request === 'refused' ? 'refused' : 'none',
    };
  }

  inboundReference(rail: InboundRail, at: Date): string {
    if (rail === 'ach') return `${digits(8)}${digits(7)}`; // trace number: the sending bank's routing prefix, then its sequence
    if (rail === 'wire')
      return `${at.toISOString().slice(0, 10).replace(/-/g, '')}MRDNQF${String(randomInt(100)).padStart(2, '0')}${digits(6)}`; // IMAD: date, source, sequence
    return `MRDN${randomBytes(6).toString('hex').toUpperCase()}`; // an international wire's instruction id
  }

  /** The bank works through an accepted close: closed (its answer maybe lost on the way), or refused. */
  private async answerClose(timer: DueTimer): Promise<void> {
    const id = String(timer.payload.virtualAccountId);
    const row = await this.row(id, true);
    if (!row || row.close_request !== 'requested') return;
    if (row.close_label === CLOSE_REFUSED_LABEL) {
      await this.uow.query(
        `UPDATE virtual_accounts.bank_accounts SET close_request = 'refused' WHERE virtual_account_id = $1`,
        [id],
      );
      await this.answer?.(timer.projectId, id, {
        closed: false,
        failure: { code: 'bank_refused', message: 'the bank refused to close the deposit account' },
      });
      return;
    }
    await this.uow.query(
      `UPDATE virtual_accounts.bank_accounts SET status = 'closed', close_request = 'closed', closed_at = now() WHERE virtual_account_id = $1`,
      [id],
    );
    if (row.close_label === CLOSE_ANSWER_LOST_LABEL) return;
    await this.answer?.(timer.projectId, id, { closed: true });
  }

  private async row(virtualAccountId: string, forUpdate = false): Promise<BankAccountRow | undefined> {
    const [row] = await this.uow.query<BankAccountRow>(
      `SELECT * FROM virtual_accounts.bank_accounts WHERE virtual_account_id = $1${forUpdate ? ' FOR UPDATE' : ''}`,
      [virtualAccountId],
    );
    return row;
  }
}

export abstract class VirtualAccountPrices {
  /** One unit of `from` in `to`, or undefined when the pair is not priced. */
  abstract rate(from: string, to: string): string | undefined;
}

/** The price provider's sandbox rates (API-CONTRACT: Quotes): one usdc is 1.00 US dollar, so a dollar is one usdc. */
@Injectable()
export class SandboxVirtualAccountPrices extends VirtualAccountPrices {
  rate(from: string, to: string): string | undefined {
    if (from !== 'usd') return undefined;
    if (to === 'usd') return '1';
    if (to === 'usdc' && SANDBOX_USD_PRICE.usdc === '1.00') return '1.00';
    return undefined;
  }
}
