// A local EVM node for the tests and for running the platform on a chain of its own: the npm hardhat 2.x
// node (its EDR engine ships in npm and runs offline) on a loopback port, with hardhat's development
// accounts (the well-known "test … junk" mnemonic: never for real money). Its stdin stays open while it
// runs (evm-node-process.js), so the node never outlives whoever started it.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { freePort } from '../container-engine';

/** Hardhat's first development accounts (address, private key), funded with 10,000 ETH on every start. */
export const DEV_ACCOUNTS = [
  {
    address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    privateKey: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  },
  {
    address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    privateKey: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  },
  {
    address: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
    privateKey: '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  },
] as const;

export interface EvmNode {
  /** The node's JSON-RPC endpoint, http://127.0.0.1:<port>. */
  rpcUrl: string;
  stop(): Promise<void>;
}

/** Starts a node and resolves once its JSON-RPC server listens. */
export async function startEvmNode(): Promise<EvmNode> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [join(__dirname, 'evm-node-process.js'), 'node', '--hostname', '127.0.0.1', '--port', String(port)],
    {
      cwd: __dirname,
      env: { ...process.env, HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true' },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  const rpcUrl = `http://127.0.0.1:${port}`;
  try {
    await listening(child);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    rpcUrl,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.stdin!.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Resolves when the node prints that its server started; rejects with its output if it exits first. */
function listening(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    const output: string[] = [];
    const timer = setTimeout(() => fail(new Error('the EVM node did not listen within 60 s')), 60_000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      reject(new Error(`${error.message}: ${output.join('\n').slice(-2_000)}`));
    };
    child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.once('exit', (code) => fail(new Error(`the EVM node exited (${code}) before it listened`)));
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      output.push(line);
      if (!/Started HTTP and WebSocket JSON-RPC server/.test(line)) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      // Its output is not read any further: drained, so the node never blocks on a full pipe.
      lines.removeAllListeners('line');
      lines.on('line', () => undefined);
      resolve();
    });
  });
}
