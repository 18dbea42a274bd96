import * as df from 'durable-functions';
import { runProjectStatus } from '../../shared/app/activities/project-status';
import { timedActivity } from '../../shared/app/activities/timed-activity';
import { PROJECT_STATUS_ACTIVITY } from '../../shared/app/runtime/durable-names';
import { appRuntime } from '../runtime';

/** Projects a resolved save's outcome to its CommitRequest. */
df.app.activity(PROJECT_STATUS_ACTIVITY, {
  handler: (input: unknown) =>
    timedActivity(PROJECT_STATUS_ACTIVITY, async () => runProjectStatus(await appRuntime(), input)),
});
