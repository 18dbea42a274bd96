#!/usr/bin/env bash
# Makes the upgrade fixture of a release from that release's own code:
#   tests/upgrade/generate-fixture.sh <version> <commit> [secrets]
# e.g. tests/upgrade/generate-fixture.sh 0.1.0 9f0c9b7. It checks the commit out beside this
# repository, runs the upgrade scenario there with that release's app and host, and writes the data
# folder it leaves to tests/fixtures/upgrade/<version>/. With `secrets` (releases from 0.2.0 on) it
# runs the Secrets scenario instead (release-secrets-scenario.ts: a Secret held for an encrypted
# target) and writes tests/fixtures/upgrade/<version>-secrets/; with `snapshot-parts` (from 0.3.0 on)
# it runs release-snapshot-parts-scenario.ts (two parts of a snapshot posted, not completed) and
# writes tests/fixtures/upgrade/<version>-snapshot-parts/. Needs `npm ci` done here
# (node_modules is shared).
set -euo pipefail
version="$1"
commit="$2"
scenario="${3:-}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
checkout="$(mktemp -d)/kubescribe-${version}"
case "$scenario" in
  "") fixture="$version" runner=release-scenario.ts ;;
  secrets) fixture="${version}-secrets" runner=release-secrets-scenario.ts ;;
  snapshot-parts) fixture="${version}-snapshot-parts" runner=release-snapshot-parts-scenario.ts ;;
  *) echo "unknown scenario: $scenario (none, secrets or snapshot-parts)" >&2; exit 2 ;;
esac
out="${root}/tests/fixtures/upgrade/${fixture}"

git -C "$root" worktree add --detach "$checkout" "$commit" >/dev/null
trap 'git -C "$root" worktree remove --force "$checkout"' EXIT
ln -s "${root}/node_modules" "${checkout}/node_modules"
mkdir -p "${checkout}/tests/upgrade"
cp "${root}/tests/upgrade/${runner}" "${root}/tests/upgrade/upgrade-scenario.ts" \
  "${root}/tests/upgrade/secrets-scenario.ts" "${root}/tests/upgrade/snapshot-parts-scenario.ts" \
  "${checkout}/tests/upgrade/"
(cd "$checkout" && UPGRADE_FIXTURE_OUT="$out" UPGRADE_RELEASE="$version" npx jest --maxWorkers=1 "tests/upgrade/${runner}" --testMatch "**/${runner}")
echo "${version} ${commit}" > "${out}/RELEASE"
echo "upgrade fixture ${fixture} of ${version} (${commit}) written to ${out}"
