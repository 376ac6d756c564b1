// pg prepares a bound parameter with this (pg/lib/utils.js); @types/pg does not declare it.
declare module 'pg/lib/utils' {
  export function prepareValue(value: unknown): unknown;
}
