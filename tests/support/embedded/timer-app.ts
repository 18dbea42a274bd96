// An app with a timer every 5 s whose runs are counted by an entity, through the durable client.
import { app, type InvocationContext, type Timer } from '@azure/functions';
import * as df from 'durable-functions';

interface Ticks {
  count: number;
  pastDue: number;
}

df.app.entity<Ticks>('ticks', (context) => {
  const state = context.df.getState(() => ({ count: 0, pastDue: 0 })) ?? { count: 0, pastDue: 0 };
  const info = context.df.getInput<{ isPastDue: boolean }>();
  context.df.setState({ count: state.count + 1, pastDue: state.pastDue + (info?.isPastDue ? 1 : 0) });
});

app.timer('every-five-seconds', {
  schedule: '*/5 * * * * *',
  extraInputs: [df.input.durableClient()],
  handler: async (timer: Timer, context: InvocationContext) => {
    await df
      .getClient(context)
      .signalEntity(new df.EntityId('ticks', 'all'), 'tick', { isPastDue: timer.isPastDue });
  },
});
