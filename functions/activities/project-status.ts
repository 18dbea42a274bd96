import * as df from 'durable-functions';
import { runProjectStatus } from '../../shared/app/activities/project-status';
import { PROJECT_STATUS_ACTIVITY } from '../../shared/app/runtime/durable-names';
import { appRuntime } from '../runtime';

/** Projects a resolved save's outcome to its CommitRequest. */
df.app.activity(PROJECT_STATUS_ACTIVITY, {
  handler: async (input: unknown) => runProjectStatus(await appRuntime(), input),
});
