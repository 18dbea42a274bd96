/**
 * Invokes a registered function the way the Functions Node worker does: through the programming
 * model `@azure/functions` registered (so bindings are converted by the library itself), with the
 * app's preInvocation/postInvocation hooks around the call.
 */
import { randomUUID } from 'node:crypto';
import { type RegisteredFunction, type Registry, type RpcTypedData, registry } from './core-module';

/** A binding value as the worker passes it: the name of the binding and its typed data. */
export interface InputData {
  name: string;
  data: RpcTypedData;
}

/** Logs a function's own log lines (category "user") and the library's ("system"). */
export type FunctionLog = (fn: string, level: string, category: string, message: string) => void;

/**
 * Runs one invocation and returns the function's return value converted the worker's way
 * (`returnValue` of the RPC response). Errors thrown by the function (or a hook) reject.
 */
export async function invokeFunction(options: {
  fn: RegisteredFunction;
  inputs: InputData[];
  log: FunctionLog;
  triggerMetadata?: Record<string, unknown>;
  /** Which retry of the function's retry policy this is (the worker's RetryContext). */
  retryContext?: { retryCount: number; maxRetryCount: number };
  reg?: Registry;
}): Promise<RpcTypedData | null | undefined> {
  const { fn, inputs, log } = options;
  const reg = options.reg ?? registry;
  const model = reg.programmingModel;
  if (!model) throw new Error('No programming model was registered: did the app load @azure/functions?');
  const coreCtx = {
    invocationId: randomUUID(),
    request: {
      inputData: inputs,
      triggerMetadata: options.triggerMetadata,
      ...(options.retryContext ? { retryContext: options.retryContext } : {}),
    },
    metadata: { name: fn.name, bindings: fn.bindings },
    state: 'preInvocationHooks',
    log: (level: string, category: string, message: string) => log(fn.name, level, category, message),
  };
  const invocation = model.getInvocationModel(coreCtx);
  const { context, inputs: args } = await invocation.getArguments();
  const hookData: Record<string, unknown> = {};
  const pre: Record<string, unknown> = {
    invocationContext: context,
    inputs: args,
    functionCallback: fn.callback,
    hookData,
  };
  for (const hook of reg.hooks.get('preInvocation') ?? []) await hook(pre);
  coreCtx.state = 'invocation';
  const handler = pre.functionCallback as (...a: unknown[]) => unknown;
  const post: Record<string, unknown> = { invocationContext: context, inputs: args, hookData };
  try {
    post.result = await invocation.invokeFunction(context, pre.inputs as unknown[], handler);
  } catch (error) {
    post.error = error;
  }
  coreCtx.state = 'postInvocationHooks';
  for (const hook of reg.hooks.get('postInvocation') ?? []) await hook(post);
  if (post.error !== undefined && post.error !== null) throw post.error;
  const response = await invocation.getResponse(context, post.result);
  return response.returnValue;
}

/**
 * Runs an activity function with its input (JSON text, as the trigger binding carries it) and
 * its client bindings; resolves with its return value.
 */
export async function invokeActivity(options: {
  fn: RegisteredFunction | undefined;
  name: string;
  input: string;
  clientInputs: InputData[];
  log: FunctionLog;
}): Promise<unknown> {
  const { fn, name, input, clientInputs, log } = options;
  if (fn?.trigger.type !== 'activityTrigger')
    throw new Error(`The activity function '${name}' does not exist.`);
  const out = await invokeFunction({
    fn,
    inputs: [{ name: fn.triggerName, data: { string: input } }, ...clientInputs],
    log,
  });
  return typedDataValue(out);
}

/** Reads a function's return value out of typed data (a string stays a string, as the worker sends it). */
export function typedDataValue(data: RpcTypedData | null | undefined): unknown {
  if (!data) return undefined;
  if (data.json !== undefined) return JSON.parse(data.json);
  if (data.string !== undefined) return data.string;
  if (data.int !== undefined) return data.int;
  if (data.double !== undefined) return data.double;
  if (data.bytes !== undefined) return Buffer.from(data.bytes).toString('utf8');
  return undefined;
}
