// Issue 21, "Done means": a small program compiled against the package with
// the TypeScript compiler shows that requests and responses are typed: the
// program as a partner writes it compiles, and a wrong field name or a wrong
// type in a body, a query or a response fails, at the line that has it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';

const ROOT = join(__dirname, '..', '..', '..');

const PROGRAM = `
import { ApiError, MoneyMovement, type Transaction } from '@meridian/money-movement';

export async function transfer(): Promise<string> {
  const client = new MoneyMovement({ apiKey: 'sk_sdbx_x', apiSecret: 'secret', baseUrl: 'http://127.0.0.1:3000/v0.13' });
  const customer = await client.customers.create({ type: 'individual', firstName: 'Ada', lastName: 'Lovelace', endorsements: ['cryptoCustody', 'usd'] });
  const wallet = await client.wallets.create(customer.id, { asset: 'usdc', network: 'meridianchain' });
  await client.sandbox.wallets.fund(wallet.id, { amount: '100.00' });
  const bank = await client.externalAccounts.create({
    owner: { kind: 'customer', customerId: customer.id },
    type: 'bankUs',
    bankUs: { accountNumber: '123456789012', routingNumber: '021000021' },
  });
  const quote = await client.quotes.create({
    customerId: customer.id,
    source: { type: 'walletOms', details: { id: wallet.id, asset: 'usdc', network: 'meridianchain' }, amount: '10.00' },
    destination: { type: 'bankUs', details: { id: bank.id, asset: 'usd', network: 'ach', accountHolder: 'customer' } },
  });
  const transaction: Transaction = await client.transactions.create({ quoteId: quote.id });
  const status: 'processing' | 'awaitingAction' | 'completed' | 'failed' = transaction.status;
  for await (const t of client.transactions.list({ customerId: customer.id, status: 'completed', limit: 10 })) {
    const amount: string = t.pricing.destination.amountNet;
    void amount;
  }
  try {
    await client.customers.get('cst_unknown');
  } catch (error) {
    if (error instanceof ApiError) return \`\${error.status} \${error.error} \${error.code} \${error.msg} \${error.cause} \${error.requestId ?? ''}\`;
  }
  const event = client.webhooks.verify('{}', 't=1,v1=00', 'whsec_x', { toleranceSeconds: 300 });
  if ('eventType' in event && event.eventType === 'transaction.statusChanged') return event.data.status;
  return status;
}
`;

/** Programs that must not compile, each with the one line at fault and what the compiler must say of it. */
const MISTAKES: Array<{ name: string; line: string; says: RegExp }> = [
  {
    name: 'a misspelt field of a request body',
    line: "await client.customers.create({ type: 'individual', firstName: 'Ada', lastNme: 'Lovelace' });",
    says: /'lastNme' does not exist/,
  },
  {
    name: 'a number where the body takes a decimal string',
    line: "await client.sandbox.wallets.fund('wlt_1', { amount: 100 });",
    says: /Type 'number' is not assignable to type 'string'/,
  },
  {
    name: 'a value outside an enum of the body',
    line: "await client.customers.create({ type: 'business', firstName: 'Ada', lastName: 'Lovelace' });",
    says: /'"business"' is not assignable/,
  },
  {
    name: 'a query parameter the list does not take',
    line: "client.wallets.list({ customer: 'cst_1' });",
    says: /'customer' does not exist/,
  },
  {
    name: 'a filter value the list does not know',
    line: "client.transactions.list({ status: 'done' });",
    says: /'"done"' is not assignable/,
  },
  {
    name: 'a misspelt field of a response',
    line: "const name: string = (await client.customers.get('cst_1')).firstNam;",
    says: /Property 'firstNam' does not exist/,
  },
  {
    name: 'a response field read as the wrong type',
    line: "const balance: number = (await client.wallets.balance('wlt_1')).data.balance;",
    says: /Type 'string' is not assignable to type 'number'/,
  },
  {
    name: 'a missing required field',
    line: 'await client.transactions.create({});',
    says: /Property 'quoteId' is missing/,
  },
];

function mistake(line: string): string {
  return [
    "import { MoneyMovement } from '@meridian/money-movement';",
    'export async function mistake(): Promise<void> {',
    "  const client = new MoneyMovement({ apiKey: 'sk_sdbx_x', apiSecret: 'secret', baseUrl: 'http://127.0.0.1:3000' });",
    `  ${line}`,
    '}',
    '',
  ].join('\n');
}
const MISTAKE_LINE = 3;

describe("the package's types, as tsc checks a program written against it", () => {
  let dir: string;
  let diagnostics: Map<string, readonly ts.Diagnostic[]>;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mm-client-types-'));
    const files = [join(dir, 'program.ts'), ...MISTAKES.map((_, i) => join(dir, `mistake-${i}.ts`))];
    writeFileSync(files[0], PROGRAM);
    MISTAKES.forEach((m, i) => writeFileSync(files[i + 1], mistake(m.line)));
    // One program for all of them: the package is checked once. It resolves as the workspace maps it.
    const program = ts.createProgram(files, {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.Node16,
      moduleResolution: ts.ModuleResolutionKind.Node16,
      lib: ['lib.es2022.d.ts'],
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: ['node'],
      typeRoots: [join(ROOT, 'node_modules', '@types')],
      paths: { '@meridian/money-movement': [join(ROOT, 'packages', 'client', 'src', 'index.ts')] },
    });
    diagnostics = new Map(
      files.map((file) => [
        file,
        [
          ...program.getSyntacticDiagnostics(program.getSourceFile(file)),
          ...program.getSemanticDiagnostics(program.getSourceFile(file)),
        ],
      ]),
    );
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const text = (d: ts.Diagnostic) => ts.flattenDiagnosticMessageText(d.messageText, '\n');

  it('compiles a program that creates a customer, funds a wallet, quotes, transacts, lists, catches and verifies', () => {
    expect(diagnostics.get(join(dir, 'program.ts'))!.map(text)).toEqual([]);
  });

  it.each(MISTAKES.map((m, i) => [m.name, i] as const))('refuses %s', (_, i) => {
    const found = diagnostics.get(join(dir, `mistake-${i}.ts`))!;
    expect(
      found.map((d) => ({ line: d.file!.getLineAndCharacterOfPosition(d.start!).line, message: text(d) })),
    ).toEqual([{ line: MISTAKE_LINE, message: expect.stringMatching(MISTAKES[i].says) }]);
  });
});
