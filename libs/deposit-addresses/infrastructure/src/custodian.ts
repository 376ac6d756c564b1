// The custodian that provisions deposit addresses, and the price of usdc in the
// currencies payouts are made in, behind ports (ARCHITECTURE: external parties
// sit behind provider ports). The sandbox custodian answers on the project's
// clock, a few seconds after the address is created (an hour for one magic
// label), and fails an address whose label is another (docs/sandbox.md).
import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { SANDBOX_FX_FROM_USD } from '@mm/contracts';
import type { ProvisioningOutcome } from '@mm/deposit-addresses/domain';

export interface ProvisioningRequest {
  depositAddressId: string;
  asset: string;
  network: string;
  label: string | null;
}

export abstract class DepositAddressCustodian {
  /** Seconds of project time the custodian takes to answer this provisioning request. */
  abstract provisioningDelaySeconds(request: ProvisioningRequest): number;
  abstract provision(request: ProvisioningRequest): Promise<ProvisioningOutcome>;
}

/** A label that makes the sandbox custodian refuse to provision the address. */
export const PROVISIONING_FAILURE_LABEL = 'ProvisioningFails';
/** A label that makes the sandbox custodian take an hour of project time to answer. */
export const PROVISIONING_SLOW_LABEL = 'ProvisioningSlow';

/** How long the sandbox custodian takes, in project time. */
export const SANDBOX_PROVISIONING_SECONDS = 2;
export const SANDBOX_SLOW_PROVISIONING_SECONDS = 3600;

@Injectable()
export class SandboxDepositAddressCustodian extends DepositAddressCustodian {
  provisioningDelaySeconds(request: ProvisioningRequest): number {
    return request.label === PROVISIONING_SLOW_LABEL ? SANDBOX_SLOW_PROVISIONING_SECONDS : SANDBOX_PROVISIONING_SECONDS;
  }

  async provision(request: ProvisioningRequest): Promise<ProvisioningOutcome> {
    if (request.label === PROVISIONING_FAILURE_LABEL) {
      return {
        failure: { code: 'custodian_rejected', message: 'the custodian could not open an address for this customer' },
      };
    }
    // EVM-style, as custodial wallets' addresses: 20 bytes, hex.
    return { address: `0x${randomBytes(20).toString('hex')}` };
  }
}

export abstract class DepositPrices {
  /** One unit of `from` in `to`, or undefined when the pair is not priced. */
  abstract rate(from: string, to: string): string | undefined;
}

/** API-CONTRACT: Quotes: usdc to usd at 1.00, to cad at the sandbox's fixed rate, as quotes price them. */
@Injectable()
export class SandboxDepositPrices extends DepositPrices {
  rate(from: string, to: string): string | undefined {
    if (from !== 'usdc') return undefined;
    if (to === 'usd') return '1.00';
    if (to === 'cad') return SANDBOX_FX_FROM_USD.CAD;
    return undefined;
  }
}
