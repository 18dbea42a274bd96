// PyYAML (Debian's python3-yaml: YAML 1.1 readers like go-yaml, which kubectl, Flux and Argo CD
// use) reading YAML files as Git holds them: many documents per python3 call, so a property test
// over thousands of values stays fast. Its pure-Python SafeLoader, or CSafeLoader on libyaml, the
// C parser go-yaml was ported from. tests/support/install-test-tools.ts installs it.
import { execFileSync } from 'node:child_process';
import { parseExactJson } from '../../shared/json/exact-json';

/** Debian's interpreter, the one python3-yaml installs into (a pyenv or venv python3 may lack it). */
export const DEBIAN_PYTHON = '/usr/bin/python3';

// Every value comes back as JSON; anything JSON has no word for (a date, a non-string key, an
// infinity, bytes) comes back tagged, so it can never pass for the string that was written.
const READER = `
import base64, json, math, sys, yaml
def plain(v):
    if isinstance(v, dict):
        return {(k if isinstance(k, str) else '$key ' + type(k).__name__ + ' ' + repr(k)): plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, float) and not math.isfinite(v):
        return {'$python': 'float', 'repr': repr(v)}
    if v is None or isinstance(v, (str, int, float, bool)):
        return v
    return {'$python': type(v).__name__, 'repr': repr(v)}
out = []
loader = getattr(yaml, sys.argv[1])
for doc in json.load(sys.stdin):
    try:
        out.append({'value': plain(yaml.load(base64.b64decode(doc), Loader=loader))})
    except Exception as e:
        out.append({'error': type(e).__name__ + ': ' + str(e)})
json.dump(out, sys.stdout)
`;

export type PyYamlRead = { value: unknown } | { error: string };

/**
 * What `yaml.load` with `loader` (`safe_load`'s by default) reads from each document's UTF-8 bytes (what a commit stores: a lone
 * surrogate would be U+FFFD there). Integers come back exact (bigint beyond 2^53).
 */
export function readWithPyYaml(
  documents: readonly string[],
  loader: 'SafeLoader' | 'CSafeLoader' = 'SafeLoader',
): PyYamlRead[] {
  const input = JSON.stringify(documents.map((doc) => Buffer.from(doc, 'utf8').toString('base64')));
  const output = execFileSync(DEBIAN_PYTHON, ['-c', READER, loader], {
    input,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  return parseExactJson(output) as PyYamlRead[];
}
