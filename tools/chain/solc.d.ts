// The part of the solc npm package (which ships no types) that compile-test-usdc.ts uses: its standard JSON
// interface, with an import callback for the sources a contract imports.
declare module 'solc' {
  interface Solc {
    compile(input: string, options?: { import(path: string): { contents: string } | { error: string } }): string;
    version(): string;
  }
  const solc: Solc;
  export default solc;
}
