// Where the API lives (API-CONTRACT: Addresses, modes, start-up): every partner
// and operator path is under the base path; these few are outside it.
export const API_BASE_PATH = 'v0.13';
export const OUTSIDE_BASE_PATH = ['healthz', 'readyz', 'openapi.json', 'docs', 'metrics'];
