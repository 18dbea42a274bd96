import * as df from 'durable-functions';
import type * as ProjectStatusActivity from '../../shared/app/activities/project-status';
import { timedActivity } from '../../shared/app/activities/timed-activity';
import { PROJECT_STATUS_ACTIVITY } from '../../shared/app/runtime/durable-names';
import { appRuntime } from '../runtime';

// The Kubernetes client loads with the first projection, not with the HTTP triggers a cold instance starts to answer.
const projectStatusActivity = (): typeof ProjectStatusActivity =>
  require('../../shared/app/activities/project-status');

/** Projects a resolved save's outcome to its CommitRequest. */
df.app.activity(PROJECT_STATUS_ACTIVITY, {
  handler: (input: unknown) =>
    timedActivity(PROJECT_STATUS_ACTIVITY, async () =>
      projectStatusActivity().runProjectStatus(await appRuntime(), input),
    ),
});
