/**
 * docs/fleet.md's table of a fleet's events is the one a script is written from: it names every
 * event of the library's union (FLEET_EVENT_NAMES, which the compiler holds to the union), and
 * nothing else.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { FLEET_EVENT_NAMES } from '../../src/fleet/events.js';
import { requires } from '../helpers/requires.js';

requires();

const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'fleet.md'), 'utf8');

describe("docs/fleet.md's events", () => {
  it('has a row for every event, in the order the union lists them, and none other', () => {
    const section = doc.slice(doc.indexOf('## What it says as it goes: events'), doc.indexOf('## Errors'));
    const rows = [...section.matchAll(/^\| `([a-z-]+)` \|/gm)].map((m) => m[1]);
    expect(rows).toEqual([...FLEET_EVENT_NAMES]);
  });

  it('shows the first line as a script reads it', () => {
    expect(doc).toContain('`{"event":"created","fleetId":`');
  });
});
