import { boundText } from '../../../../shared/git/forges/pull-request-text';

const limits = { title: 20, description: 60 };

describe('boundText', () => {
  it('keeps text within the limits as it is, line ends made \\n', () => {
    expect(boundText({ title: 'two changes', description: 'a\r\nb\rc\n\td' }, limits)).toEqual({
      title: 'two changes',
      description: 'a\nb\nc\n\td',
    });
  });

  it('keeps whole lines and names how many were left out', () => {
    const description = Array.from({ length: 10 }, (_, i) => `line ${i}`).join('\n');

    const bounded = boundText({ title: 't', description }, limits).description;

    expect(bounded.length).toBeLessThanOrEqual(60);
    expect(bounded).toBe('line 0\nline 1\nline 2\nline 3\nline 4\n… and 5 more lines');
  });

  it('cuts a first line longer than the limit inside it, marked as cut', () => {
    const bounded = boundText({ title: 't', description: `${'x'.repeat(100)}\nsecond` }, limits).description;

    expect(bounded.length).toBeLessThanOrEqual(60);
    expect(bounded).toMatch(/^x+…\n… and 1 more line$/);
  });

  it('never cuts a character in half', () => {
    const bounded = boundText({ title: '😀'.repeat(15), description: '😀'.repeat(40) }, limits);

    expect(bounded.title).toBe(`${'😀'.repeat(9)}…`);
    expect(bounded.description).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
    expect(bounded.description.length).toBeLessThanOrEqual(60);
  });

  it('cuts a long title with an ellipsis, and names an empty one', () => {
    expect(boundText({ title: 'a'.repeat(30), description: '' }, limits).title).toBe(`${'a'.repeat(19)}…`);
    expect(boundText({ title: ' \u0000\n ', description: '' }, limits).title).toBe('kubescribe changes');
  });

  it('drops control characters and bidirectional overrides, and mends lone surrogates', () => {
    expect(
      boundText({ title: 'a\u202eb', description: 'x\u0000\u001b\u0085\u2067y\ud800z' }, limits),
    ).toEqual({
      title: 'ab',
      description: 'xy\ufffdz',
    });
  });
});
