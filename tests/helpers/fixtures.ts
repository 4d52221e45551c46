/**
 * The run's shared fixtures, asked of the global setup's service (tests/helpers/fixture-service.ts):
 * the first file to ask has it made, the others get the same one.
 */
import { request } from 'node:http';

import { inject } from 'vitest';

import type { FixtureName } from './fixture-service.js';

/** The fixture's value (moto's endpoint, a file's or directory's path); throws with the build's own message when it could not be made. */
export function fixture(name: FixtureName): Promise<string> {
  const base = inject('volbenchFixtures');
  if (!base) throw new Error(`fixture ${name}: no fixture service in this project (the service, device and package projects have one)`);
  return new Promise((resolve, reject) => {
    // node:http rather than fetch: a bundle takes minutes, past fetch's own header timeout.
    const req = request(`${base}/${name}`, { method: 'POST' }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => {
        const answer = JSON.parse(body) as { value?: string; error?: string };
        if (res.statusCode === 200 && answer.value) resolve(answer.value);
        else reject(new Error(answer.error ?? `fixture ${name}: HTTP ${res.statusCode}`));
      });
    });
    req.on('error', reject);
    req.end();
  });
}
