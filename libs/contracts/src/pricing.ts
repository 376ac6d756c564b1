// Pricing (spec: Pricing): exact in decimal arithmetic. The invariant
// source.amountNet × exchangeRate = destination.amountGross holds with no
// rounding at all: a fixed amount whose conversion would need more decimals
// than the other side's asset has is refused (InexactConversion), never rounded.
// Every fee component is 0.00 at launch. Quotes price with it, and so does a
// deposit address its deposits (source usdc, fixed on the source side).
import { ASSET_SCALE, assetDecimals, dec, formatAmount, type DecimalValue } from '@mm/platform/money';
import { ApiError } from './errors';
import type { Pricing, PricingSide } from './ports';
import { OPERATOR } from './sandbox';

/** The price provider's rate for one unit of `from` in `to` (sandbox: usdc/usd 1.00, usd/cad 1.25). */
export type RateLookup = (from: string, to: string) => string | undefined;

export interface PricingInput {
  sourceAsset: string;
  destinationAsset: string;
  amount: string;
  fixedAmountSide: 'source' | 'destination';
  sponsorGas: boolean;
  rate: string;
}

function zeroFees(scale: number): Record<string, string> {
  const zero = formatAmount('0', scale);
  return { total: zero, developer: zero, gas: zero, [OPERATOR]: zero };
}

function side(asset: string, amount: DecimalValue): PricingSide {
  const scale = ASSET_SCALE[asset];
  const value = formatAmount(amount, scale);
  return { asset, amountGross: value, amountNet: value, feesDeducted: zeroFees(scale) };
}

export function price(input: PricingInput): Pricing {
  const rate = dec(input.rate);
  const sourceScale = assetDecimals(input.sourceAsset);
  const destinationScale = assetDecimals(input.destinationAsset);
  const amount = dec(input.amount);
  let source: DecimalValue;
  let destination: DecimalValue;
  if (input.fixedAmountSide === 'source') {
    source = amount;
    destination = amount.times(rate);
    if (destination.decimalPlaces() > destinationScale) {
      throw new ApiError(
        'InexactConversion',
        `${input.amount} ${input.sourceAsset} at ${input.rate} is ${destination.toFixed()} ${input.destinationAsset}, more than the ${destinationScale} decimals of ${input.destinationAsset}`,
      );
    }
  } else {
    destination = amount;
    source = amount.div(rate);
    if (!source.times(rate).eq(amount) || source.decimalPlaces() > sourceScale) {
      throw new ApiError(
        'InexactConversion',
        `${input.amount} ${input.destinationAsset} at ${input.rate} needs ${source.toSignificantDigits(20).toFixed()} ${input.sourceAsset}, more than the ${sourceScale} decimals of ${input.sourceAsset}`,
      );
    }
  }
  const rateText = formatAmount(rate, 18);
  return {
    source: side(input.sourceAsset, source),
    destination: side(input.destinationAsset, destination),
    pair: `${input.sourceAsset}/${input.destinationAsset}`,
    exchangeRate: rateText,
    // Fees are zero, so what arrives per unit sent is the exchange rate itself.
    effectiveRate: rateText,
    fixedAmountSide: input.fixedAmountSide,
    sponsorGas: input.sponsorGas,
    sponsorGasCost: '0.00',
  };
}
