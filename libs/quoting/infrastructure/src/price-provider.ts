// Rates (API-CONTRACT: Quotes): a price provider port; the sandbox quotes
// usdc/usd at 1.00 both ways, usdc to usdc across networks at 1.00, and usd to
// cad at the sandbox's fixed rate.
import { Injectable } from '@nestjs/common';
import { SANDBOX_FX_FROM_USD } from '@mm/contracts';

export abstract class PriceProvider {
  /** One unit of `from` in `to`, or undefined when the pair is not priced. */
  abstract rate(from: string, to: string): string | undefined;
}

@Injectable()
export class SandboxPriceProvider extends PriceProvider {
  rate(from: string, to: string): string | undefined {
    const usdValue: Record<string, string> = { usd: '1', usdc: '1' };
    if (usdValue[from] && usdValue[to]) return '1.00';
    if (usdValue[from] && to === 'cad') return SANDBOX_FX_FROM_USD.CAD;
    return undefined;
  }
}
