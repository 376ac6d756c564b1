// Which operations need which endorsement (docs/endorsements.md): only an active one admits the
// operation, and each missing endorsement is refused with its own 422.
import { ApiError } from './errors';
import {
  ENDORSEMENT_REQUIRED,
  fiatEndorsement,
  OPERATION_ENDORSEMENTS,
  requireEndorsement,
  type EndorsedCustomer,
} from './endorsements';
import type { EndorsementName, EndorsementStatus } from './events';

const customer = (endorsements: Array<[EndorsementName, EndorsementStatus]>): EndorsedCustomer => ({
  id: 'cst_01h455vb4pex5vsknk084sn02q',
  endorsements: endorsements.map(([name, status]) => ({ name, status })),
});

function refusal(run: () => void): { status: number; error: string; cause: string } | undefined {
  try {
    run();
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const body = error.toBody();
    return { status: error.definition.status, error: body.error, cause: body.cause };
  }
  return undefined;
}

describe('endorsements', () => {
  it('admits an operation whose endorsement is active', () => {
    expect(
      refusal(() =>
        requireEndorsement(
          customer([
            ['basic', 'pending'],
            ['usd', 'active'],
          ]),
          'usd',
          'a cash-in',
        ),
      ),
    ).toBeUndefined();
  });

  it.each<[string, Array<[EndorsementName, EndorsementStatus]>, string]>([
    ['never requested', [['basic', 'active']], 'was never requested'],
    ['pending', [['usd', 'pending']], 'is pending'],
    ['rejected', [['usd', 'rejected']], 'is rejected'],
  ])('refuses one %s with 422 UsdEndorsementRequired, saying what needed it and how to get it', (_, held, state) => {
    expect(refusal(() => requireEndorsement(customer(held), 'usd', 'a cash pickup'))).toEqual({
      status: 422,
      error: 'UsdEndorsementRequired',
      cause: `a cash pickup needs an active usd endorsement, and customer cst_01h455vb4pex5vsknk084sn02q's usd endorsement ${state}: request it (POST /customers/cst_01h455vb4pex5vsknk084sn02q/endorsements) and wait for endorsement.active`,
    });
  });

  it('refuses each endorsement with its own error', () => {
    for (const name of ['basic', 'cryptoCustody', 'usd'] as const) {
      expect(refusal(() => requireEndorsement(customer([]), name, 'it'))).toMatchObject({
        status: 422,
        error: ENDORSEMENT_REQUIRED[name],
      });
    }
    expect(ENDORSEMENT_REQUIRED).toEqual({
      basic: 'BasicEndorsementRequired',
      cryptoCustody: 'CryptoCustodyEndorsementRequired',
      usd: 'UsdEndorsementRequired',
    });
  });

  it("asks custody for wallets and the currency rail's endorsement for fiat and cash", () => {
    expect(OPERATION_ENDORSEMENTS).toEqual({
      custodialWallet: 'cryptoCustody',
      cashIn: 'usd',
      cashPickup: 'usd',
      card: 'usd',
    });
    expect(fiatEndorsement('usd')).toBe('usd');
    expect(fiatEndorsement('cad')).toBe('basic');
  });
});
