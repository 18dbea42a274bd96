import * as df from 'durable-functions';
import { runReadRemote } from '../../shared/app/activities/read-remote';
import { timedActivity } from '../../shared/app/activities/timed-activity';
import { READ_REMOTE_ACTIVITY } from '../../shared/app/runtime/durable-names';
import { appRuntime } from '../runtime';

/** Reads where a ref points on a branch's remote: a parent probe or an observation. */
df.app.activity(READ_REMOTE_ACTIVITY, {
  handler: (input: unknown) =>
    timedActivity(READ_REMOTE_ACTIVITY, async () => runReadRemote(await appRuntime(), input)),
});
