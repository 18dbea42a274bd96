// An app with a trigger schedule the embedded host cannot run (a timer at a time of day).
import { app } from '@azure/functions';

app.timer('Nightly', { schedule: '0 0 0 * * *', handler: async () => {} });
