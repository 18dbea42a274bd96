// An app with a trigger the embedded host cannot run (a timer trigger).
import { app } from '@azure/functions';

app.timer('Nightly', { schedule: '0 0 0 * * *', handler: async () => {} });
