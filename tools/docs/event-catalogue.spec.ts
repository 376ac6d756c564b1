// Issue 18 item 3: the event catalogue as documentation. docs/events.md is
// generated from the catalogue in code, and this test fails when it is stale.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  PARTNER_EVENT_CATALOGUE,
  PARTNER_EVENT_DEFINITIONS,
  partnerEventExample,
  partnerEventExampleProblems,
  PLANNED_PARTNER_EVENTS,
  SEQUENCE_MEANING,
} from '@mm/contracts';
import { renderEventCatalogue } from './event-catalogue';

const TYPEID = '[0-9a-hjkmnp-tv-z]{26}';

describe('event catalogue', () => {
  it('docs/events.md is the generated catalogue (run npm run docs:events)', () => {
    expect(readFileSync(join(__dirname, '..', '..', 'docs', 'events.md'), 'utf8')).toBe(renderEventCatalogue());
  });

  it('documents every event of this version: when it fires, its data and an example delivery', () => {
    const page = renderEventCatalogue();
    for (const name of PARTNER_EVENT_CATALOGUE) {
      const definition = PARTNER_EVENT_DEFINITIONS.find((e) => e.name === name)!;
      expect(page).toContain(`### \`${name}\`\n\n- **When:** ${definition.when}.`);
      expect(page).toContain(JSON.stringify(partnerEventExample(name), null, 2));
    }
    // Planned events are listed as such, never as subscribable.
    for (const name of PLANNED_PARTNER_EVENTS) expect(page).not.toContain(`### \`${name}\``);
    expect(page).toContain('## Not in this version');
  });

  it("states what sequence means: the resource's version, increasing, with gaps", () => {
    expect(SEQUENCE_MEANING).toMatch(/version of the resource/);
    expect(SEQUENCE_MEANING).toMatch(/increases/);
    expect(SEQUENCE_MEANING).toMatch(/gaps/);
    expect(renderEventCatalogue()).toContain(`## \`sequence\`\n\n${SEQUENCE_MEANING}`);
  });

  it("gives every event of this version an example whose data is its resource, with ids of the spec's prefixes", () => {
    expect(partnerEventExampleProblems()).toEqual([]);
    for (const name of PARTNER_EVENT_CATALOGUE) {
      const example = partnerEventExample(name);
      expect(example.event ?? example.eventType).toBe(name);
      expect(example.id).toMatch(new RegExp(`^whd_${TYPEID}$`));
      const ids = JSON.stringify(example).match(/"[a-z]+_[0-9a-z]{26}"/g) ?? [];
      for (const id of ids)
        expect(id).toMatch(new RegExp(`^"(cst|wlt|qt|txn|ci|loc|da|va|ext|cpty|wh|whd|evt)_${TYPEID}"$`));
      if (name !== 'webhook.test') expect(example.sequence).toEqual(expect.any(Number));
    }
  });
});
