import { z } from 'zod';
import { ApiError } from '../../../shared/api/errors';
import { readJson, readJsonBody } from '../../../shared/api/request';

const schema = z.object({ events: z.array(z.object({ type: z.enum(['ADDED', 'DELETED']) })) }).strict();

function request(body: string, contentType = 'application/json', contentLength?: string) {
  return {
    contentType,
    contentLength: contentLength ?? String(Buffer.byteLength(body)),
    read: async () => new TextEncoder().encode(body).buffer as ArrayBuffer,
  };
}

async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('reading a JSON body', () => {
  it('returns the validated body', async () => {
    await expect(readJsonBody(request('{"events":[{"type":"ADDED"}]}'), schema, 1024)).resolves.toEqual({
      events: [{ type: 'ADDED' }],
    });
  });

  it('reads an int64 beyond 2^53 digit for digit, as a bigint', async () => {
    const body = await readJson(request('{"spec":{"max":9223372036854775807,"odd":9007199254740993}}'), 1024);
    expect(body).toEqual({ spec: { max: 9223372036854775807n, odd: 9007199254740993n } });
  });

  it('refuses a number beyond a double with 400 naming the problem and where it is, never reading it as Infinity', async () => {
    const error = await refusal(readJson(request('{"spec":{"n":1e400}}'), 1024));
    expect(error.code).toBe('invalid-input');
    expect(error.message).toMatch(
      /^The body holds a number beyond the range of a 64-bit floating point number \(at character 13\)/,
    );
  });

  it('refuses a body that is not JSON with 415', async () => {
    const error = await refusal(readJsonBody(request('events', 'text/plain'), schema, 1024));
    expect(error.toResponse().status).toBe(415);
  });

  it('refuses malformed JSON with 400 naming the problem', async () => {
    const error = await refusal(readJsonBody(request('{"events": ['), schema, 1024));
    expect(error.code).toBe('invalid-input');
    expect(error.message).toMatch(/not valid JSON/);
  });

  it('refuses malformed JSON without quoting any of the body', async () => {
    for (const body of [
      '{"token": hunter2-secret-value}',
      'hunter2-secret-value',
      '{"a": "hunter2-secret-value"',
    ]) {
      const error = await refusal(readJsonBody(request(body), schema, 1024));
      expect(error.message).toMatch(/^The body is not valid JSON( \(at character \d+\))?\.$/);
      expect(JSON.stringify(error.toResponse())).not.toMatch(/hunter2|secret/);
    }
  });

  it('refuses a body of the wrong shape with 400 and the path of each issue', async () => {
    const error = await refusal(readJsonBody(request('{"events":[{"type":"EXPLODED"}]}'), schema, 1024));
    expect(error.toResponse()).toMatchObject({
      status: 400,
      body: { error: 'invalid-input', issues: [{ path: 'events.0.type' }] },
    });
  });

  it('refuses a body over the limit with 413, by its declared length before reading it', async () => {
    let read = false;
    const big = {
      ...request('{}', 'application/json', '2048'),
      read: async () => {
        read = true;
        return new ArrayBuffer(2);
      },
    };
    const error = await refusal(readJsonBody(big, schema, 1024));
    expect(error.toResponse().status).toBe(413);
    expect(read).toBe(false);
  });

  it('refuses a body over the limit with 413 when its length was not declared', async () => {
    const error = await refusal(
      readJsonBody(request(`{"events":[],"x":"${'a'.repeat(2000)}"}`, 'application/json', ''), schema, 1024),
    );
    expect(error.code).toBe('payload-too-large');
  });
});

describe('an error answer', () => {
  it('carries Retry-After in whole seconds when intake is paused', () => {
    const response = new ApiError('intake-paused', 'Intake is paused.', {
      retryAfterSeconds: 9.2,
    }).toResponse();
    expect(response.status).toBe(429);
    expect(response.headers?.['retry-after']).toBe('10');
  });
});
