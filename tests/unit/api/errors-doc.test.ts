// Keeps the HTTP error table and docs/api.md honest with each other (one table, one page).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { API_ERRORS, ApiError, type ApiErrorCode } from '../../../shared/api/errors';

// Pinned: adding or removing a code must be a deliberate change, made in the docs too.
const EXPECTED_CODES = 14;

const API_DOC = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'api.md'), 'utf8');

/** The rows `| \`code\` | status | … |` of the table under docs/api.md's "## Errors" heading. */
function documentedErrors(markdown: string): { code: string; status: number }[] {
  const section = markdown.split(/^## /m).find((part) => part.startsWith('Errors\n'));
  if (section === undefined) throw new Error('docs/api.md has no "## Errors" section');
  return [...section.matchAll(/^\|\s*`([^`]+)`\s*\|\s*(\d{3})\s*\|/gm)].map(([, code, status]) => ({
    code: code!,
    status: Number(status),
  }));
}

const documented = documentedErrors(API_DOC);
const codes = Object.keys(API_ERRORS) as ApiErrorCode[];

describe('the HTTP error table and docs/api.md', () => {
  it('has the pinned number of codes', () => {
    expect(codes).toHaveLength(EXPECTED_CODES);
  });

  it.each(codes)('documents %s with the status the table gives it', (code) => {
    expect(documented.filter((row) => row.code === code)).toEqual([
      { code, status: API_ERRORS[code].status },
    ]);
  });

  it('documents no code the table does not have, and none twice', () => {
    expect(documented.map((row) => row.code).sort()).toEqual([...codes].sort());
  });

  it('gives every code a 4xx or 5xx status, and only the intake pause 429', () => {
    for (const code of codes) expect(API_ERRORS[code].status).toBeGreaterThanOrEqual(400);
    expect(codes.filter((code) => API_ERRORS[code].status === 429)).toEqual(['intake-paused']);
  });
});

describe('an error answer', () => {
  it.each(codes)('answers %s with its status and the one body shape, the code as the error', (code) => {
    const response = new ApiError(code, 'A sentence naming the problem.').toResponse();
    expect(response).toEqual({
      status: API_ERRORS[code].status,
      headers: { 'content-type': 'application/json' },
      body: { error: code, message: 'A sentence naming the problem.' },
    });
  });

  it('lists the issues of invalid input, each with a path and a message', () => {
    const issues = [{ path: 'events[0].type', message: 'Invalid option' }];
    expect(
      new ApiError('invalid-input', 'The events body is not valid.', { issues }).toResponse().body,
    ).toEqual({
      error: 'invalid-input',
      message: 'The events body is not valid.',
      issues,
    });
  });

  it('tells a paused client when to retry, in whole seconds of at least one', () => {
    const later = new ApiError('intake-paused', 'Paused.', { retryAfterSeconds: 12.2 }).toResponse();
    const soon = new ApiError('intake-paused', 'Paused.', { retryAfterSeconds: 0 }).toResponse();
    expect([later.headers?.['retry-after'], soon.headers?.['retry-after']]).toEqual(['13', '1']);
  });

  it('carries the phase of a save it can no longer withdraw beside the code', () => {
    const held = new ApiError('save-held', 'Too late.', {
      details: { phase: 'WaitingForPush' },
    }).toResponse();
    expect(held).toMatchObject({
      status: 409,
      body: { error: 'save-held', message: 'Too late.', phase: 'WaitingForPush' },
    });
  });
});
