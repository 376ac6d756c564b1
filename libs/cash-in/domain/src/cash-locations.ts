// The sandbox retail cash network (spec: Cash location (read); API-CONTRACT:
// Cash locations) and the search over it: nearest first by great-circle
// distance, or by reference without coordinates. Pure: the application serves
// the network's locations; production binds a real network behind the same shape.
// The ids are fixed TypeIDs, generated once: partners and tests may keep them.
import { ApiError, CASH_FLOWS, type CashFlow, type CashLocationPublished } from '@mm/contracts';

/** A location of the retail network: what cashLocation.published announces, less the moment of publication. */
export type CashLocation = Omit<CashLocationPublished, 'publishedAt'>;

/** The large retailer of spec: Limits / Cash-in, whose locations take up to $1,000 per cash-in. */
export const LARGE_RETAILER = 'bigmart';

export const CASH_LOCATION_PROVIDERS = ['bigmart', 'quickstop', 'pharmaplus', 'cashpoint'] as const;

const BOTH: CashFlow[] = ['cash_in', 'cash_out'];
const IN: CashFlow[] = ['cash_in'];
const OUT: CashFlow[] = ['cash_out'];

function at(
  locId: string,
  provider: (typeof CASH_LOCATION_PROVIDERS)[number],
  store: string,
  line1: string,
  city: string,
  state: string,
  postalCode: string,
  latitude: number,
  longitude: number,
  flows: CashFlow[],
): CashLocation {
  const names = {
    bigmart: 'BigMart Supercenter',
    quickstop: 'QuickStop Market',
    pharmaplus: 'PharmaPlus Pharmacy',
    cashpoint: 'CashPoint Check Cashing',
  };
  return {
    locId,
    cashLocationReference: `${provider.toUpperCase()}-${store}`,
    name: `${names[provider]} #${store}`,
    provider,
    address: { line1, city, state, postalCode, country: 'US' },
    latitude,
    longitude,
    flows,
  };
}

/** Every location of the sandbox network (docs/sandbox.md lists the same table). */
export const SANDBOX_CASH_LOCATIONS: readonly CashLocation[] = [
  at(
    'loc_01m846c3h4e06945jf6mfht9tc',
    'bigmart',
    '1001',
    '1200 S Figueroa St',
    'Los Angeles',
    'CA',
    '90015',
    34.040713,
    -118.266556,
    BOTH,
  ),
  at(
    'loc_01m846c3h5e06945jm2ngx9n6q',
    'bigmart',
    '1002',
    '3450 Sports Arena Blvd',
    'San Diego',
    'CA',
    '92110',
    32.754511,
    -117.212326,
    BOTH,
  ),
  at(
    'loc_01m846c3h5e06945jsxtdpm66y',
    'bigmart',
    '1003',
    '1900 Arden Way',
    'Sacramento',
    'CA',
    '95815',
    38.599583,
    -121.424049,
    IN,
  ),
  at(
    'loc_01m846c3h5e06945k1hdfe6y0k',
    'bigmart',
    '1004',
    '2550 Coors Blvd NW',
    'Albuquerque',
    'NM',
    '87120',
    35.10947,
    -106.71228,
    BOTH,
  ),
  at(
    'loc_01m846c3h5e06945kayssy93y2',
    'bigmart',
    '1005',
    '1550 S Valley Dr',
    'Las Cruces',
    'NM',
    '88005',
    32.291839,
    -106.793221,
    IN,
  ),
  at(
    'loc_01m846c3h5e06945kk49eh66ba',
    'bigmart',
    '1006',
    '9700 Westheimer Rd',
    'Houston',
    'TX',
    '77042',
    29.736702,
    -95.552719,
    BOTH,
  ),
  at(
    'loc_01m846c3h5e06945ksg1xw2d2c',
    'bigmart',
    '1007',
    '1607 W Bethany Home Rd',
    'Phoenix',
    'AZ',
    '85015',
    33.52341,
    -112.095512,
    BOTH,
  ),
  at(
    'loc_01m846c3h5e06945m0kp09h0fr',
    'bigmart',
    '1008',
    '4650 W North Ave',
    'Chicago',
    'IL',
    '60639',
    41.90939,
    -87.741837,
    BOTH,
  ),
  at(
    'loc_01m846c3h5e06945mbeed914yw',
    'bigmart',
    '1009',
    '8400 Coral Way',
    'Miami',
    'FL',
    '33155',
    25.74835,
    -80.33371,
    IN,
  ),
  at(
    'loc_01m846c3h6e06945mhndrys0kn',
    'quickstop',
    '2001',
    '845 Market St',
    'San Francisco',
    'CA',
    '94103',
    37.784172,
    -122.406958,
    BOTH,
  ),
  at(
    'loc_01m846c3h7e06945mv76kz01kg',
    'quickstop',
    '2002',
    '611 W 6th St',
    'Los Angeles',
    'CA',
    '90017',
    34.04916,
    -118.2558,
    IN,
  ),
  at(
    'loc_01m846c3h7e06945n1r7901gys',
    'quickstop',
    '2003',
    '1545 Fulton St',
    'Fresno',
    'CA',
    '93721',
    36.73884,
    -119.79097,
    OUT,
  ),
  at(
    'loc_01m846c3h7e06945negycz8f3x',
    'quickstop',
    '2004',
    '201 W Marcy St',
    'Santa Fe',
    'NM',
    '87501',
    35.68932,
    -105.94063,
    BOTH,
  ),
  at(
    'loc_01m846c3h7e06945nqp2napatm',
    'quickstop',
    '2005',
    '300 N Mesa St',
    'El Paso',
    'TX',
    '79901',
    31.7605,
    -106.48917,
    IN,
  ),
  at(
    'loc_01m846c3h7e06945ny346pf1t8',
    'quickstop',
    '2006',
    '1601 Elm St',
    'Dallas',
    'TX',
    '75201',
    32.78233,
    -96.79757,
    BOTH,
  ),
  at(
    'loc_01m846c3h7e06945p02j2nk53w',
    'quickstop',
    '2007',
    '120 E Congress St',
    'Tucson',
    'AZ',
    '85701',
    32.22233,
    -110.96958,
    IN,
  ),
  at(
    'loc_01m846c3h7e06945pe0a9p3xn5',
    'quickstop',
    '2008',
    '1520 4th Ave',
    'Seattle',
    'WA',
    '98101',
    47.61103,
    -122.33664,
    BOTH,
  ),
  at(
    'loc_01m846c3h7e06945pktmthkta3',
    'pharmaplus',
    '3001',
    '350 S Broadway',
    'Los Angeles',
    'CA',
    '90013',
    34.05099,
    -118.2481,
    IN,
  ),
  at(
    'loc_01m846c3h7e06945pwd6e261rf',
    'pharmaplus',
    '3002',
    '2145 Mission St',
    'San Francisco',
    'CA',
    '94110',
    37.76244,
    -122.41947,
    BOTH,
  ),
  at(
    'loc_01m846c3h7e06945q04bb04rc7',
    'pharmaplus',
    '3003',
    '400 Central Ave SW',
    'Albuquerque',
    'NM',
    '87102',
    35.08435,
    -106.65128,
    IN,
  ),
  at(
    'loc_01m846c3h7e06945q807s6fsfv',
    'pharmaplus',
    '3004',
    '700 Congress Ave',
    'Austin',
    'TX',
    '78701',
    30.26942,
    -97.74264,
    BOTH,
  ),
  at(
    'loc_01m846c3h7e06945qm5ea09q21',
    'pharmaplus',
    '3005',
    '455 W 34th St',
    'New York',
    'NY',
    '10001',
    40.75322,
    -73.99726,
    IN,
  ),
  at(
    'loc_01m846c3h7e06945qygra6jpsz',
    'pharmaplus',
    '3006',
    '55 W Church St',
    'Orlando',
    'FL',
    '32801',
    28.54032,
    -81.37942,
    BOTH,
  ),
  at(
    'loc_01m846c3h7e06945r7avjdh5ct',
    'pharmaplus',
    '3007',
    '250 Delaware Ave',
    'Buffalo',
    'NY',
    '14202',
    42.88876,
    -78.87629,
    IN,
  ),
  at(
    'loc_01m846c3h7e06945rfwsbap6wh',
    'cashpoint',
    '4001',
    '1750 E 1st St',
    'Los Angeles',
    'CA',
    '90033',
    34.04691,
    -118.20932,
    OUT,
  ),
  at(
    'loc_01m846c3h7e06945rpv1z0h2ad',
    'cashpoint',
    '4002',
    '2900 University Ave',
    'San Diego',
    'CA',
    '92104',
    32.74851,
    -117.13234,
    OUT,
  ),
  at(
    'loc_01m846c3h7e06945rsx68bak0n',
    'cashpoint',
    '4003',
    '5901 Zuni Rd SE',
    'Albuquerque',
    'NM',
    '87108',
    35.07416,
    -106.57143,
    OUT,
  ),
  at(
    'loc_01m846c3h7e06945s79xw013kq',
    'cashpoint',
    '4004',
    '6100 Bellaire Blvd',
    'Houston',
    'TX',
    '77081',
    29.70513,
    -95.48574,
    OUT,
  ),
  at(
    'loc_01m846c3h7e06945s94xwshpz8',
    'cashpoint',
    '4005',
    '2080 Frederick Douglass Blvd',
    'New York',
    'NY',
    '10026',
    40.80398,
    -73.95547,
    OUT,
  ),
  at(
    'loc_01m846c3h7e06945shzns898n8',
    'cashpoint',
    '4006',
    '3130 N Cicero Ave',
    'Chicago',
    'IL',
    '60641',
    41.93743,
    -87.74617,
    BOTH,
  ),
];

export interface Coordinates {
  latitude: number;
  longitude: number;
}

/** Mean Earth radius (IUGG), km. */
const EARTH_RADIUS_KM = 6371.0088;

/** Great-circle distance by the haversine formula, in km (geometry, not money: binary floats are right here). */
export function haversineKm(a: Coordinates, b: Coordinates): number {
  const rad = (deg: number) => (deg * Math.PI) / 180;
  const dLat = rad(b.latitude - a.latitude);
  const dLon = rad(b.longitude - a.longitude);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.latitude)) * Math.cos(rad(b.latitude)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

const COORDINATE = /^-?(0|[1-9][0-9]{0,2})(\.[0-9]{1,12})?$/;

/** latitude and longitude as the query gives them: both or neither, decimal, in range. */
export function parseCoordinates(latitude: string | undefined, longitude: string | undefined): Coordinates | undefined {
  if (latitude === undefined && longitude === undefined) return undefined;
  if (latitude === undefined || longitude === undefined)
    throw new ApiError('InvalidCoordinates', 'latitude and longitude go together: give both or neither');
  const parse = (value: string, name: string, limit: number) => {
    if (!COORDINATE.test(value))
      throw new ApiError('InvalidCoordinates', `${name} must be a decimal number of degrees, for example 34.0522`);
    const n = Number(value);
    if (n < -limit || n > limit)
      throw new ApiError('InvalidCoordinates', `${name} must be between -${limit} and ${limit}`);
    return n;
  };
  return { latitude: parse(latitude, 'latitude', 90), longitude: parse(longitude, 'longitude', 180) };
}

export interface LocationQuery {
  provider?: string;
  flow: CashFlow;
  near?: Coordinates;
}

export interface LocationResult extends CashLocation {
  /** km from the query's coordinates, to 10 m; null when the query gave none. */
  distanceKm: number | null;
}

export function parseFlow(flow: string | undefined): CashFlow {
  if (flow === undefined) return 'cash_in';
  if (!(CASH_FLOWS as readonly string[]).includes(flow))
    throw new ApiError('InvalidRequest', `flow must be one of ${CASH_FLOWS.join(', ')}`);
  return flow as CashFlow;
}

export function checkProvider(locations: readonly CashLocation[], provider: string | undefined): string | undefined {
  if (provider === undefined) return undefined;
  const providers = [...new Set(locations.map((l) => l.provider))].sort();
  if (!providers.includes(provider)) {
    throw new ApiError('UnknownCashLocationProvider', `provider must be one of ${providers.join(', ')}`);
  }
  return provider;
}

/**
 * The locations that match, nearest first (ties by reference); without coordinates in a stable
 * order, by reference, with distanceKm null.
 */
export function searchLocations(locations: readonly CashLocation[], query: LocationQuery): LocationResult[] {
  const matching = locations.filter(
    (l) => l.flows.includes(query.flow) && (query.provider === undefined || l.provider === query.provider),
  );
  const byReference = (a: CashLocation, b: CashLocation) =>
    a.cashLocationReference < b.cashLocationReference ? -1 : a.cashLocationReference > b.cashLocationReference ? 1 : 0;
  const near = query.near;
  if (!near) return matching.map((l) => ({ ...l, distanceKm: null })).sort(byReference);
  return matching
    .map((l) => ({ ...l, exact: haversineKm(near, l), distanceKm: Math.round(haversineKm(near, l) * 100) / 100 }))
    .sort((a, b) => a.exact - b.exact || byReference(a, b))
    .map(({ exact: _exact, ...result }) => result);
}

/** The location of a cash-in: it must exist, carry the reference given and take cash-ins. */
export function cashInLocation(
  locations: readonly CashLocation[],
  locationId: string,
  reference: string,
): CashLocation {
  const location = locations.find((l) => l.locId === locationId);
  if (!location) throw new ApiError('CashLocationNotFound', `no retail location ${locationId}`);
  if (location.cashLocationReference !== reference) {
    throw new ApiError(
      'CashLocationReferenceMismatch',
      `cash.locationReference is not the reference of location ${locationId}`,
    );
  }
  if (!location.flows.includes('cash_in'))
    throw new ApiError('CashLocationFlowUnsupported', `location ${locationId} offers cash pickup only, no cash-ins`);
  return location;
}
