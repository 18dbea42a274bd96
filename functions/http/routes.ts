import { discardBranchWrites, getBranch } from '../../shared/app/http/branch-routes';
import { getHistory } from '../../shared/app/http/history-routes';
import {
  completeSnapshot,
  postAdmission,
  postAudit,
  postEvents,
  postSnapshot,
  postSnapshotPart,
} from '../../shared/app/http/ingest-routes';
import { deleteSave, getSave, postSave } from '../../shared/app/http/save-routes';
import {
  getTarget,
  listPending,
  listSaves,
  listTargets,
  postRefresh,
  postResume,
  postSuspend,
} from '../../shared/app/http/status-routes';
import { route } from './route';

// The HTTP contract v1 (docs/api.md). Function names are stable: they appear in logs and metrics.
route('v1-targets', 'v1/targets', { GET: listTargets });
route('v1-target', 'v1/targets/{target}', { GET: getTarget });
route('v1-target-history', 'v1/targets/{target}/history', { GET: getHistory });
route('v1-target-pending', 'v1/targets/{target}/pending', { GET: listPending });
route('v1-target-events', 'v1/targets/{target}/events', { POST: postEvents });
route('v1-target-audit', 'v1/targets/{target}/audit', { POST: postAudit });
route('v1-target-snapshots', 'v1/targets/{target}/snapshots', { POST: postSnapshot });
route('v1-target-snapshot-parts', 'v1/targets/{target}/snapshots/{id}/parts', { POST: postSnapshotPart });
route('v1-target-snapshot-complete', 'v1/targets/{target}/snapshots/{id}/complete', {
  POST: completeSnapshot,
});
route('v1-target-saves', 'v1/targets/{target}/saves', { GET: listSaves, POST: postSave });
route('v1-target-save', 'v1/targets/{target}/saves/{id}', { GET: getSave, DELETE: deleteSave });
route('v1-target-refresh', 'v1/targets/{target}/refresh', { POST: postRefresh });
route('v1-target-suspend', 'v1/targets/{target}/suspend', { POST: postSuspend });
route('v1-target-resume', 'v1/targets/{target}/resume', { POST: postResume });
route('v1-admission', 'v1/admission', { POST: postAdmission });
route('v1-branch', 'v1/branches/{branch}', { GET: getBranch });
route('v1-branch-discard', 'v1/branches/{branch}/discard', { POST: discardBranchWrites });
