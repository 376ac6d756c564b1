// The partner guides never contradict the platform (spec: States and transitions; Events): every status,
// transaction sub-status and event a guide names is one the platform can produce, and every one its flow
// produces (the guide flows table of the testing library, which the guides' own run keeps honest) is named in it.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GUIDE_FLOWS } from '@mm/platform/testing';
import { namesIn, platformNames, unknownNames } from './guide-names';

const GUIDES = join(__dirname, '..', '..', 'docs', 'guides');
const FILES = readdirSync(GUIDES)
  .filter((f) => f.endsWith('.md'))
  .sort();
const platform = platformNames();

describe('the names a guide reads', () => {
  it('finds a sub-status, an event and a status the platform cannot produce, wherever a guide puts them', () => {
    const named = namesIn(
      [
        'The transfer is `refunded` now: its sub-status `failed.returnPending`, and a `transaction.refunded` webhook.',
        '',
        '| `subStatus` | with `status` | meaning |',
        '|---|---|---|',
        '| `processing.fundsPulled` | `reversed` | … |',
        '',
        '```http',
        'GET {{api}}/transactions?status=voided',
        '```',
        '```http',
        'HTTP/1.1 200 OK',
        '',
        '{"status": "cancelled", "previousStatus": "processing", "event": "cashIn.vanished"}',
        '```',
      ].join('\n'),
    );
    expect(unknownNames(named, platform)).toEqual({
      statuses: ['cancelled', 'refunded', 'reversed', 'voided'],
      subStatuses: ['failed.returnPending'],
      events: ['cashIn.vanished', 'transaction.refunded'],
    });
  });

  it('does not take a field path, a file name or a word for a status or an event', () => {
    const named = namesIn(
      'Read `data.status` and `hold.match`; save `receiver.cjs`; `{{transaction.id}}` names it. Its `type` is ' +
        '`bankUs`? No: the status is `null` until the charge settles.',
    );
    expect(named).toEqual({ statuses: new Set(), subStatuses: new Set(), events: new Set() });
  });

  it('knows what the platform produces: its statuses, sub-statuses and events', () => {
    // A few of each, from the spec's States and transitions and Events, so that an empty source fails.
    expect([...platform.statuses]).toEqual(expect.arrayContaining(['processing', 'awaitingAction', 'settled']));
    expect([...platform.subStatuses]).toEqual(
      expect.arrayContaining(['processing.fundsPulled', 'awaitingAction.awaitingSenderAttribution']),
    );
    expect([...platform.events]).toEqual(expect.arrayContaining(['transaction.statusChanged', 'webhook.test']));
  });
});

describe.each(FILES)('docs/guides/%s', (file) => {
  const named = namesIn(readFileSync(join(GUIDES, file), 'utf8'));

  it('names only statuses, sub-statuses and events the platform produces', () => {
    expect(unknownNames(named, platform)).toEqual({ statuses: [], subStatuses: [], events: [] });
  });

  if (file === 'README.md') return;
  it('names every status, sub-status and event its flow produces', () => {
    const flow = GUIDE_FLOWS[file];
    expect(flow).toBeDefined();
    const subStatuses = flow.subStatuses === 'all' ? [...platform.subStatuses] : flow.subStatuses;
    const omitted = {
      statuses: flow.statuses.filter((n) => !named.statuses.has(n)),
      subStatuses: subStatuses.filter((n) => !named.subStatuses.has(n)),
      events: flow.events.filter((n) => !named.events.has(n)),
    };
    expect(omitted).toEqual({ statuses: [], subStatuses: [], events: [] });
  });
});

it('has a flow for every guide, and none for a guide that is gone', () => {
  expect(Object.keys(GUIDE_FLOWS).sort()).toEqual(FILES.filter((f) => f !== 'README.md'));
});
