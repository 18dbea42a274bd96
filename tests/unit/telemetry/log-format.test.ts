import { functionLogRecord, humanLine, jsonLogger, loggerFromEnv } from '../../../embedded/log';
import { logLineOf } from '../../../shared/telemetry/log-lines';

const NOW = Date.parse('2026-12-01T12:00:01.250Z');

function captured(env: Record<string, string>, isTTY: boolean) {
  const lines: string[] = [];
  const log = loggerFromEnv(env, { isTTY, write: (text: string) => lines.push(text) });
  return { log, lines };
}

describe('the host logger', () => {
  it('writes JSON lines when stdout is not a terminal', () => {
    const { log, lines } = captured({}, false);
    log('info', 'PublicationLanded', { commit: 'abc', changes: 3 });
    expect(lines).toHaveLength(1);
    expect(lines[0]!.endsWith('\n')).toBe(true);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      level: 'info',
      event: 'PublicationLanded',
      commit: 'abc',
      changes: 3,
    });
  });

  it('writes one readable line per record on a terminal', () => {
    const { log, lines } = captured({}, true);
    log('warn', 'PublicationAttemptFailed', { message: 'publication of main failed', nextRetryAt: 'soon' });
    expect(lines[0]).toMatch(
      /^\d\d:\d\d:\d\d\.\d{3} WARN {2}PublicationAttemptFailed {2}publication of main failed {2}nextRetryAt=soon\n$/,
    );
    expect(() => JSON.parse(lines[0]!)).toThrow();
  });

  it('escapes control characters in every field, so a client’s text cannot forge a line or repaint the terminal', () => {
    // what a request path `/api/v1/targets/x%0A...%1B%5B31m` decodes to in a route parameter
    const forged = 'x\n12:00:00.000 INFO  PublicationLanded  \u001b[31mall good\u001b[0m\u009b2J';
    for (const isTTY of [true, false]) {
      const { log, lines } = captured({}, isTTY);
      log('warn', 'RequestRefused', { message: `target ${forged} not found`, target: forged, [forged]: 1 });
      expect(lines).toHaveLength(1);
      const controls = [...lines[0]!.slice(0, -1)].filter((char) => {
        const code = char.charCodeAt(0);
        return code < 0x20 || (code >= 0x7f && code <= 0x9f);
      });
      expect(controls).toEqual([]);
      expect(lines[0]!.match(/\n/g)).toHaveLength(1);
      if (!isTTY)
        expect(JSON.parse(lines[0]!)).toMatchObject({
          target: forged,
          message: `target ${forged} not found`,
        });
    }
  });

  it('formats a record as time, level, event, message and the other fields', () => {
    expect(
      humanLine({
        time: new Date(NOW).toISOString(),
        level: 'info',
        event: 'SaveResolved',
        message: 'save s1 resolved Committed',
        saveId: 's1',
        targets: ['a', 'b'],
        reason: 'has spaces',
      }),
    ).toBe(
      '12:00:01.250 INFO  SaveResolved  save s1 resolved Committed  saveId=s1 targets=["a","b"] reason="has spaces"',
    );
  });

  it.each([
    ['debug', ['debug', 'info', 'warn', 'error']],
    ['info', ['info', 'warn', 'error']],
    ['warn', ['warn', 'error']],
    ['WARNING', ['warn', 'error']],
    ['error', ['error']],
  ] as const)('LOG_LEVEL=%s writes %j', (level, written) => {
    const { log, lines } = captured({ LOG_LEVEL: level }, false);
    for (const each of ['debug', 'info', 'warn', 'error'] as const) log(each, 'HostStarted', {});
    expect(lines.map((line) => JSON.parse(line).level)).toEqual(written);
  });

  it('refuses a LOG_LEVEL it does not know, naming the choices', () => {
    expect(() => loggerFromEnv({ LOG_LEVEL: 'verbose' })).toThrow(
      'LOG_LEVEL "verbose" is not one of debug, info, warn, error',
    );
  });

  it('masks credentials in either format', () => {
    for (const isTTY of [false, true]) {
      const { log, lines } = captured({}, isTTY);
      log('warn', 'PublicationAttemptFailed', {
        reason: 'https://bot:hunter2@git.example/x.git refused; token=abc123',
      });
      expect(lines[0]).not.toContain('hunter2');
      expect(lines[0]).not.toContain('abc123');
    }
  });

  it('writes nothing below its minimum level', () => {
    const lines: string[] = [];
    const log = jsonLogger({ minLevel: 'warn', write: (line) => lines.push(line), now: () => NOW });
    log('info', 'HostStarted', {});
    expect(lines).toEqual([]);
  });
});

describe("a function's log line", () => {
  it("keeps the app's own event, level and fields", () => {
    const line = JSON.stringify({ event: 'RequestRefused', message: 'refused', status: 400 });
    expect(functionLogRecord('warning', 'user', line, 'v1-target-events')).toEqual({
      level: 'warn',
      event: 'RequestRefused',
      fields: { message: 'refused', status: 400 },
    });
  });

  it('is a FunctionLog with its text otherwise', () => {
    expect(functionLogRecord('information', 'user', '{not json', 'f')).toEqual({
      level: 'info',
      event: 'FunctionLog',
      fields: { function: 'f', category: 'user', message: '{not json' },
    });
    expect(functionLogRecord('information', 'system', '{"event":"Forged"}').event).toBe('FunctionLog');
  });
});

describe('the log line of an occurrence', () => {
  it('names the publication: targets, branch in words, commit and changes, without each latency', () => {
    const line = logLineOf(
      {
        type: 'PublicationLanded',
        branch: 'b-1',
        targets: ['prod'],
        commit: '0123456789abcdef0123',
        writes: 2,
        changes: 3,
        evidence: 'pushed',
        latenciesMs: [1, 2, 3],
      },
      (key) => (key === 'b-1' ? 'main of state' : undefined),
    );
    expect(line).toEqual({
      level: 'info',
      event: 'PublicationLanded',
      message: 'published 3 changes of prod on main of state as 0123456789ab',
      fields: {
        branch: 'b-1',
        branchName: 'main of state',
        targets: ['prod'],
        commit: '0123456789abcdef0123',
        writes: 2,
        changes: 3,
        evidence: 'pushed',
      },
    });
  });

  it('warns of a failed attempt with its reason and next retry', () => {
    expect(
      logLineOf({
        type: 'PublicationAttemptFailed',
        branch: 'b-1',
        kind: 'transient',
        reason: 'connection refused',
        nextRetryAt: '2026-12-01T12:00:20.000Z',
        delayMs: 20_000,
      }),
    ).toMatchObject({
      level: 'warn',
      message:
        'publication of b-1 failed (transient): connection refused; next attempt at 2026-12-01T12:00:20.000Z',
    });
  });

  it('is none for what only feeds metrics', () => {
    expect(logLineOf({ type: 'GitCallTimed', call: 'push', durationMs: 3, ok: true })).toBeUndefined();
  });
});
