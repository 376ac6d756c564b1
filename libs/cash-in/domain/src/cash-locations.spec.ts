// Spec: Cash location (read); API-CONTRACT: Cash locations. The sandbox network and its search.
import { ApiError } from '@mm/contracts';
import { isId } from '@mm/platform/ids';
import {
  cashInLocation,
  checkProvider,
  haversineKm,
  LARGE_RETAILER,
  parseCoordinates,
  parseFlow,
  SANDBOX_CASH_LOCATIONS,
  searchLocations,
} from './cash-locations';

const isError = (name: string) => (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return error instanceof ApiError && error.errorName === name;
  }
  return false;
};
const DOWNTOWN_LA = { latitude: 34.0522, longitude: -118.2437 };

describe('the sandbox retail network', () => {
  it('has fixed TypeIDs and references, each once, across several providers and states, California and New Mexico among them', () => {
    expect(SANDBOX_CASH_LOCATIONS.length).toBeGreaterThanOrEqual(24);
    expect(SANDBOX_CASH_LOCATIONS.every((l) => isId('cashLocation', l.locId))).toBe(true);
    expect(new Set(SANDBOX_CASH_LOCATIONS.map((l) => l.locId)).size).toBe(SANDBOX_CASH_LOCATIONS.length);
    expect(new Set(SANDBOX_CASH_LOCATIONS.map((l) => l.cashLocationReference)).size).toBe(
      SANDBOX_CASH_LOCATIONS.length,
    );
    const states = new Set(SANDBOX_CASH_LOCATIONS.map((l) => l.address.state));
    for (const state of ['CA', 'NM', 'TX', 'NY']) expect(states.has(state)).toBe(true);
    expect(new Set(SANDBOX_CASH_LOCATIONS.map((l) => l.provider)).size).toBeGreaterThanOrEqual(3);
    expect(SANDBOX_CASH_LOCATIONS.some((l) => l.provider === LARGE_RETAILER)).toBe(true);
  });

  it('offers cash-in only, pickup only, and both', () => {
    const flows = new Set(SANDBOX_CASH_LOCATIONS.map((l) => l.flows.join('+')));
    expect(flows).toEqual(new Set(['cash_in', 'cash_out', 'cash_in+cash_out']));
  });
});

describe('searching locations', () => {
  it('answers nearest first with the haversine distance, to 10 m', () => {
    const results = searchLocations(SANDBOX_CASH_LOCATIONS, { flow: 'cash_in', near: DOWNTOWN_LA });
    const distances = results.map((r) => r.distanceKm!);
    expect(distances).toEqual([...distances].sort((a, b) => a - b));
    expect(results[0].address.city).toBe('Los Angeles');
    for (const r of results) expect(String(r.distanceKm)).toMatch(/^\d+(\.\d{1,2})?$/);
    expect(results.every((r) => r.flows.includes('cash_in'))).toBe(true);
  });

  it('measures great-circle distances', () => {
    // Los Angeles City Hall to San Francisco City Hall: about 559 km.
    expect(
      haversineKm({ latitude: 34.05349, longitude: -118.24255 }, { latitude: 37.77926, longitude: -122.41929 }),
    ).toBeCloseTo(559, 0);
    expect(haversineKm(DOWNTOWN_LA, DOWNTOWN_LA)).toBe(0);
  });

  it('without coordinates, answers every match by reference, with distanceKm null', () => {
    const results = searchLocations(SANDBOX_CASH_LOCATIONS, { flow: 'cash_out' });
    const references = results.map((r) => r.cashLocationReference);
    expect(references).toEqual([...references].sort());
    expect(results.every((r) => r.distanceKm === null && r.flows.includes('cash_out'))).toBe(true);
  });

  it('filters by provider and flow', () => {
    const bigmart = searchLocations(SANDBOX_CASH_LOCATIONS, { flow: 'cash_in', provider: 'bigmart' });
    expect(bigmart.length).toBeGreaterThan(0);
    expect(bigmart.every((r) => r.provider === 'bigmart')).toBe(true);
    expect(
      searchLocations(SANDBOX_CASH_LOCATIONS, { flow: 'cash_in', provider: 'cashpoint' }).map(
        (r) => r.cashLocationReference,
      ),
    ).toEqual(['CASHPOINT-4006']);
  });

  it.each([
    ['34.05', undefined],
    [undefined, '-118.24'],
    ['90.0001', '0'],
    ['-91', '0'],
    ['0', '180.5'],
    ['north', '0'],
    ['1e2', '0'],
    ['', '0'],
    ['34,05', '0'],
  ])('refuses latitude %p with longitude %p', (latitude, longitude) =>
    expect(isError('InvalidCoordinates')(() => parseCoordinates(latitude, longitude))).toBe(true),
  );

  it('takes coordinates in range, the extremes included', () => {
    expect(parseCoordinates('-90', '180')).toEqual({ latitude: -90, longitude: 180 });
    expect(parseCoordinates('35.0844', '-106.6504')).toEqual({ latitude: 35.0844, longitude: -106.6504 });
    expect(parseCoordinates(undefined, undefined)).toBeUndefined();
  });

  it('knows the flows and the providers', () => {
    expect(parseFlow(undefined)).toBe('cash_in');
    expect(parseFlow('cash_out')).toBe('cash_out');
    expect(isError('InvalidRequest')(() => parseFlow('cash_sideways'))).toBe(true);
    expect(checkProvider(SANDBOX_CASH_LOCATIONS, 'quickstop')).toBe('quickstop');
    expect(isError('UnknownCashLocationProvider')(() => checkProvider(SANDBOX_CASH_LOCATIONS, 'megamart'))).toBe(true);
  });

  it('takes a cash-in only at an existing location, with its reference, that takes cash-ins', () => {
    const la = SANDBOX_CASH_LOCATIONS.find((l) => l.cashLocationReference === 'BIGMART-1001')!;
    const pickupOnly = SANDBOX_CASH_LOCATIONS.find((l) => l.flows.join() === 'cash_out')!;
    expect(cashInLocation(SANDBOX_CASH_LOCATIONS, la.locId, 'BIGMART-1001')).toBe(la);
    expect(
      isError('CashLocationReferenceMismatch')(() => cashInLocation(SANDBOX_CASH_LOCATIONS, la.locId, 'BIGMART-1002')),
    ).toBe(true);
    expect(
      isError('CashLocationNotFound')(() =>
        cashInLocation(SANDBOX_CASH_LOCATIONS, 'loc_01h455vb4pex5vsknk084sn02q', 'BIGMART-1001'),
      ),
    ).toBe(true);
    expect(
      isError('CashLocationFlowUnsupported')(() =>
        cashInLocation(SANDBOX_CASH_LOCATIONS, pickupOnly.locId, pickupOnly.cashLocationReference),
      ),
    ).toBe(true);
  });
});
