// A cash-in's amounts (spec: Cash-in; Pricing; API-CONTRACT: Quotes): cash in
// usd, crypto out, the source side fixed. Estimates come from indicatedAmount
// at creation and are recalculated on the actual deposit. Exact in decimal
// arithmetic: a conversion that would need more decimals than the crypto has
// cannot happen at the sandbox's usd/usdc 1.00, and is refused if a rate ever
// made one. Every fee component is 0.00 at launch.
import { OPERATOR, type Pricing, type PricingSide } from '@mm/contracts';
import { ASSET_SCALE, dec, formatAmount } from '@mm/platform/money';

export const CASH_ASSET = 'usd';

export interface CashInRates {
  pair: string;
  exchangeRate: string;
  effectiveRate: string;
}

export function cashInRates(destinationAsset: string, rate: string): CashInRates {
  const text = formatAmount(rate, 18);
  // Fees are zero, so what arrives per dollar is the exchange rate itself.
  return { pair: `${CASH_ASSET}/${destinationAsset}`, exchangeRate: text, effectiveRate: text };
}

function side(asset: string, amount: string): PricingSide {
  const scale = ASSET_SCALE[asset];
  const value = formatAmount(amount, scale);
  const zero = formatAmount('0', scale);
  return {
    asset,
    amountGross: value,
    amountNet: value,
    feesDeducted: { total: zero, developer: zero, gas: zero, [OPERATOR]: zero },
  };
}

/** The pricing of `amount` usd into the destination asset at `rate`. */
export function cashInPricing(amount: string, destinationAsset: string, rate: string): Pricing {
  const scale = ASSET_SCALE[destinationAsset];
  if (scale === undefined) throw new Error(`no scale for asset ${destinationAsset}`);
  const destination = dec(amount).times(rate);
  if (destination.decimalPlaces() > scale)
    throw new Error(`${amount} ${CASH_ASSET} at ${rate} is not a whole number of ${destinationAsset} units`);
  const rates = cashInRates(destinationAsset, rate);
  return {
    source: side(CASH_ASSET, amount),
    destination: side(destinationAsset, destination.toFixed()),
    pair: rates.pair,
    exchangeRate: rates.exchangeRate,
    effectiveRate: rates.effectiveRate,
    fixedAmountSide: 'source',
    sponsorGas: true,
    sponsorGasCost: '0.00',
  };
}
