// Pricing (spec: Pricing) lives in the contracts, shared with the deposit
// addresses service, which prices its deposits exactly as a quote is priced.
export { price, type PricingInput, type RateLookup } from '@mm/contracts';
