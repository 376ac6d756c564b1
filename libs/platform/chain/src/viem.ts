// viem, the chain client: an ES module package with a CommonJS build, whose types TypeScript reads as ES
// modules only (this workspace compiles to CommonJS). Its CommonJS build comes through require() here, typed
// from its own declarations, for the rest of the code to import from @mm/platform/chain.
/* eslint-disable @typescript-eslint/no-require-imports */
import type * as Viem from 'viem' with { 'resolution-mode': 'import' };
import type * as ViemAccounts from 'viem/accounts' with { 'resolution-mode': 'import' };

// Loaded on first use: a process with no network on a chain never pays viem's load time (~170 ms).
const lazily = <T extends object>(load: () => T): T => {
  let module: T | undefined;
  return new Proxy({} as T, { get: (_, key) => (module ??= load())[key as keyof T] });
};

export const viem = lazily(() => require('viem') as typeof Viem);
export const viemAccounts = lazily(() => require('viem/accounts') as typeof ViemAccounts);

export type Abi = Viem.Abi;
export type Address = Viem.Address;
export type Hex = Viem.Hex;
