#!/usr/bin/env bash
# Makes the upgrade fixture of a release from that release's own code:
#   tests/upgrade/generate-fixture.sh <version> <commit>
# e.g. tests/upgrade/generate-fixture.sh 0.1.0 9f0c9b7. It checks the commit out beside this
# repository, runs the upgrade scenario there with that release's app and host, and writes the data
# folder it leaves to tests/fixtures/upgrade/<version>/. Needs `npm ci` done here (node_modules is shared).
set -euo pipefail
version="$1"
commit="$2"
root="$(cd "$(dirname "$0")/../.." && pwd)"
checkout="$(mktemp -d)/kubescribe-${version}"
out="${root}/tests/fixtures/upgrade/${version}"

git -C "$root" worktree add --detach "$checkout" "$commit" >/dev/null
trap 'git -C "$root" worktree remove --force "$checkout"' EXIT
ln -s "${root}/node_modules" "${checkout}/node_modules"
mkdir -p "${checkout}/tests/upgrade"
cp "${root}/tests/upgrade/release-scenario.ts" "${root}/tests/upgrade/upgrade-scenario.ts" "${checkout}/tests/upgrade/"
(cd "$checkout" && UPGRADE_FIXTURE_OUT="$out" UPGRADE_RELEASE="$version" npx jest --maxWorkers=1 tests/upgrade/release-scenario.ts --testMatch '**/release-scenario.ts')
echo "${version} ${commit}" > "${out}/RELEASE"
echo "upgrade fixture of ${version} (${commit}) written to ${out}"
