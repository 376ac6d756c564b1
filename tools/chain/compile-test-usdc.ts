// Compiles the test token (libs/platform/chain/contracts/TestUsdc.sol) with the solc npm package, offline,
// OpenZeppelin's contracts read from node_modules. `npm run chain:compile` writes the artifact that local
// chains deploy (libs/platform/chain/src/test-usdc.artifact.json); test-usdc.spec.ts holds it to the source.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import solc from 'solc';

const root = join(__dirname, '..', '..');
export const TEST_USDC_SOURCE = join(root, 'libs/platform/chain/contracts/TestUsdc.sol');
export const TEST_USDC_ARTIFACT = join(root, 'libs/platform/chain/src/test-usdc.artifact.json');

export interface CompiledContract {
  contractName: string;
  compiler: string;
  abi: unknown[];
  bytecode: string;
}

interface SolcOutput {
  errors?: Array<{ severity: string; formattedMessage: string }>;
  contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
}

export function compileTestUsdc(): CompiledContract {
  const input = {
    language: 'Solidity',
    sources: { 'TestUsdc.sol': { content: readFileSync(TEST_USDC_SOURCE, 'utf8') } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'cancun',
      // No metadata hash in the bytecode: the same source compiles to the same bytes wherever it sits.
      metadata: { bytecodeHash: 'none' },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  };
  const findImports = (path: string) => {
    try {
      return { contents: readFileSync(require.resolve(path), 'utf8') };
    } catch {
      return { error: `${path} is not in node_modules` };
    }
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports })) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const contract = output.contracts['TestUsdc.sol'].TestUsdc;
  return {
    contractName: 'TestUsdc',
    compiler: `solc ${solc.version()}`,
    abi: contract.abi,
    bytecode: `0x${contract.evm.bytecode.object}`,
  };
}

if (require.main === module) {
  writeFileSync(TEST_USDC_ARTIFACT, `${JSON.stringify(compileTestUsdc(), null, 2)}\n`);
  process.stdout.write(`wrote ${TEST_USDC_ARTIFACT}\n`);
}
