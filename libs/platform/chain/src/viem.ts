// viem, the chain client: an ES module package with a CommonJS build, whose types TypeScript reads as ES
// modules only (this workspace compiles to CommonJS). Its CommonJS build comes through require() here, typed
// from its own declarations, for the rest of the code to import from @mm/platform/chain.
/* eslint-disable @typescript-eslint/no-require-imports */
import type * as Viem from 'viem' with { 'resolution-mode': 'import' };
import type * as ViemAccounts from 'viem/accounts' with { 'resolution-mode': 'import' };

export const viem = require('viem') as typeof Viem;
export const viemAccounts = require('viem/accounts') as typeof ViemAccounts;

export type Abi = Viem.Abi;
export type Address = Viem.Address;
export type Hex = Viem.Hex;
