// Provider ports for external accounts and their sandbox simulations: the
// instrument provider that takes the full account or card number at
// registration (returning a token; the number is never stored here) and later
// provisions the account, and the payout screening provider (spec: rule 9).
// Magic values (docs/sandbox.md) make the simulations fail as real ones do.
import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  EXTERNAL_ACCOUNT_MAGIC_LAST4,
  SCREENING_MAGIC_NAMES,
  type ExternalAccountDetails,
  type ExternalAccountFailure,
  type ExternalAccountType,
} from '@mm/contracts';

/** The write-only values of a registration: account number, IBAN, card number and CVC. */
export type SensitiveValues = Record<string, string>;

export type ProvisioningOutcome =
  { outcome: 'active' } | { outcome: 'rejected'; failure: ExternalAccountFailure } | { outcome: 'noAnswer' };

export abstract class InstrumentProvider {
  /** Hands the full instrument to the provider (card processor, bank account vault); returns its token. */
  abstract register(type: ExternalAccountType, sensitive: SensitiveValues): Promise<string>;
  /** Asks the provider to provision (verify) a registered instrument. */
  abstract provision(account: {
    type: ExternalAccountType;
    details: ExternalAccountDetails;
    providerReference: string;
  }): Promise<ProvisioningOutcome>;
}

export abstract class ScreeningProvider {
  /** Sanctions and AML screening of a payout beneficiary's names; a failure when one is a hit. */
  abstract screen(names: string[]): Promise<ExternalAccountFailure | null>;
  /** Hands a counterparty's tax id to the screening provider, which keeps it; it is not stored here. */
  abstract recordTaxId(counterpartyId: string, taxId: string): Promise<void>;
}

/** The digits (or IBAN characters) whose last four choose the simulated outcome. */
function last4Of(details: ExternalAccountDetails): string | undefined {
  if ('accountNumberLast4' in details) return details.accountNumberLast4;
  if ('ibanLast4' in details) return details.ibanLast4;
  if ('last4' in details) return details.last4;
  return undefined;
}

@Injectable()
export class SandboxInstrumentProvider extends InstrumentProvider {
  async register(type: ExternalAccountType): Promise<string> {
    // A real vault or processor keeps the number behind this token; the sandbox needs nothing back.
    return `${type === 'card' ? 'tok' : 'pvd'}_sdbx_${randomBytes(12).toString('hex')}`;
  }

  async provision(account: {
    type: ExternalAccountType;
    details: ExternalAccountDetails;
  }): Promise<ProvisioningOutcome> {
    const magic = EXTERNAL_ACCOUNT_MAGIC_LAST4[last4Of(account.details) as keyof typeof EXTERNAL_ACCOUNT_MAGIC_LAST4];
    if (magic === 'noAnswer') return { outcome: 'noAnswer' };
    if (magic === 'reject') {
      return account.type === 'card'
        ? {
            outcome: 'rejected',
            failure: { code: 'card_declined', message: 'the card issuer declined the card verification' },
          }
        : {
            outcome: 'rejected',
            failure: {
              code: 'provider_rejected',
              message: 'the bank rejected the account: it could not be found or cannot receive payments',
            },
          };
    }
    return { outcome: 'active' };
  }
}

@Injectable()
export class SandboxScreening extends ScreeningProvider {
  async screen(names: string[]): Promise<ExternalAccountFailure | null> {
    for (const name of names) {
      for (const word of name.split(/\s+/)) {
        const code = SCREENING_MAGIC_NAMES[word as keyof typeof SCREENING_MAGIC_NAMES];
        if (code === 'sanctions_screening_hit')
          return { code, message: 'the beneficiary matched a sanctions list during payout screening' };
        if (code === 'aml_screening_hit')
          return { code, message: 'the beneficiary was flagged by anti-money-laundering screening' };
      }
    }
    return null;
  }

  async recordTaxId(): Promise<void> {
    // The sandbox screening provider has nothing to check a tax id against.
  }
}
