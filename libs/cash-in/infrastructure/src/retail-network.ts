// The retail cash network and the price of cash in crypto, behind ports
// (ARCHITECTURE: external parties sit behind provider ports). The sandbox
// network is the fixed directory of libs/cash-in/domain; its partner confirms
// deposits through the simulation route. Production binds real adapters here.
import { Injectable } from '@nestjs/common';
import { SANDBOX_CASH_LOCATIONS, type CashLocation } from '@mm/cash-in/domain';

export abstract class RetailNetwork {
  /** Every location of the network, cash-in and pickup alike. */
  abstract locations(): readonly CashLocation[];
}

@Injectable()
export class SandboxRetailNetwork extends RetailNetwork {
  locations(): readonly CashLocation[] {
    return SANDBOX_CASH_LOCATIONS;
  }
}

export abstract class CashInPrices {
  /** One usd in `asset`, or undefined when the asset is not priced. */
  abstract rate(asset: string): string | undefined;
}

/** API-CONTRACT: Quotes: usdc/usd at 1.00. */
@Injectable()
export class SandboxCashInPrices extends CashInPrices {
  rate(asset: string): string | undefined {
    return asset === 'usdc' ? '1.00' : undefined;
  }
}
