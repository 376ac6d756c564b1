// The committed artifact of the test token is what its source compiles to (issue: the token used in tests has
// its Solidity source in the repository): a change to either without the other fails here.
import { readFileSync } from 'node:fs';
import { compileTestUsdc, TEST_USDC_ARTIFACT } from './compile-test-usdc';

jest.setTimeout(60_000);

it('the committed test token artifact is the compiled source (npm run chain:compile rewrites it)', () => {
  const committed = JSON.parse(readFileSync(TEST_USDC_ARTIFACT, 'utf8'));
  expect(compileTestUsdc()).toEqual(committed);
});

it('compiles to an ERC-20 of six decimals whose owner mints', () => {
  const { abi } = compileTestUsdc();
  const names = (abi as Array<{ type: string; name?: string }>).filter((e) => e.type === 'function').map((e) => e.name);
  expect(names).toEqual(
    expect.arrayContaining(['transfer', 'transferFrom', 'approve', 'balanceOf', 'decimals', 'mint']),
  );
  const events = (abi as Array<{ type: string; name?: string }>).filter((e) => e.type === 'event').map((e) => e.name);
  expect(events).toEqual(expect.arrayContaining(['Transfer', 'Approval']));
});
