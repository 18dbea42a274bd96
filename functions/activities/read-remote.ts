import * as df from 'durable-functions';
import type * as ReadRemoteActivity from '../../shared/app/activities/read-remote';
import { timedActivity } from '../../shared/app/activities/timed-activity';
import { READ_REMOTE_ACTIVITY } from '../../shared/app/runtime/durable-names';
import { appRuntime } from '../runtime';

// The Git executor loads with the first read, not with the HTTP triggers a cold instance starts to answer.
const readRemoteActivity = (): typeof ReadRemoteActivity =>
  require('../../shared/app/activities/read-remote');

/** Reads where a ref points on a branch's remote: a parent probe or an observation. */
df.app.activity(READ_REMOTE_ACTIVITY, {
  handler: (input: unknown) =>
    timedActivity(READ_REMOTE_ACTIVITY, async () =>
      readRemoteActivity().runReadRemote(await appRuntime(), input),
    ),
});
