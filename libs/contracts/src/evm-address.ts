// EVM addresses (both networks of this version are EVM chains): 0x and 40 hexadecimal digits, and a
// mixed-case address must carry its EIP-55 checksum. One rule for every service that takes an address.
import { keccak_256 } from '@noble/hashes/sha3';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';

/** EIP-55: a hex digit is upper case where the Keccak-256 of the lower-case address has a nibble of 8 or more. */
export function toChecksumAddress(value: string): string {
  const lower = value.slice(2).toLowerCase();
  const hash = bytesToHex(keccak_256(utf8ToBytes(lower)));
  return `0x${[...lower].map((c, i) => (parseInt(hash[i], 16) >= 8 ? c.toUpperCase() : c)).join('')}`;
}

/** What is wrong with an address, or undefined when it is a valid one (all lower, all upper, or checksummed). */
export function evmAddressProblem(value: string): string | undefined {
  if (!/^0x[0-9a-fA-F]{40}$/.test(value)) return 'must be 0x followed by 40 hexadecimal digits';
  const body = value.slice(2);
  if (body === body.toLowerCase() || body === body.toUpperCase()) return undefined;
  return toChecksumAddress(value) === value
    ? undefined
    : 'does not match its EIP-55 checksum; check the address for a typo';
}
