/**
 * Provides the virtual `@azure/functions-core` module that the Functions Node worker normally
 * provides. `@azure/functions` (and through it durable-functions) registers every function, hook and
 * the programming model here, so the app's code runs unmodified.
 */
import Module from 'node:module';
import { scheduleIntervalMs } from './timer-schedule';

/** A binding as `@azure/functions` describes it (toCoreFunctionMetadata). */
export interface Binding {
  type: string;
  direction: 'in' | 'out';
  name?: string;
  route?: string;
  methods?: string[];
  authLevel?: string;
  [key: string]: unknown;
}

/** One registered function: its metadata and the exact callback the worker would invoke. */
export interface RegisteredFunction {
  name: string;
  bindings: Record<string, Binding>;
  triggerName: string;
  trigger: Binding;
  /** The function's retry policy (`retry` of its registration), as the worker reports it to the host. */
  retry?: Record<string, unknown>;
  callback: (...args: unknown[]) => unknown;
}

/** The subset of the worker's invocation context the programming model reads. */
export interface CoreInvocationContext {
  invocationId: string;
  request: {
    inputData: { name: string; data: RpcTypedData }[];
    triggerMetadata?: Record<string, unknown>;
    retryContext?: { retryCount: number; maxRetryCount: number };
  };
  metadata: { name: string; bindings: Record<string, Binding> };
  state?: string;
  log(level: string, category: string, message: string): void;
}

/** A binding value as the worker passes it over RPC. */
export interface RpcTypedData {
  string?: string;
  json?: string;
  bytes?: Uint8Array;
  http?: Record<string, unknown>;
  int?: number;
  double?: number;
  collectionString?: { string: string[] };
}

/** The programming model `@azure/functions` hands over with setProgrammingModel. */
export interface ProgrammingModel {
  name: string;
  version: string;
  getInvocationModel(ctx: CoreInvocationContext): {
    getArguments(): Promise<{ context: unknown; inputs: unknown[] }>;
    invokeFunction(
      context: unknown,
      inputs: unknown[],
      handler: (...a: unknown[]) => unknown,
    ): Promise<unknown>;
    getResponse(context: unknown, result: unknown): Promise<{ returnValue?: RpcTypedData | null }>;
  };
}

export type HookName = 'appStart' | 'appTerminate' | 'preInvocation' | 'postInvocation' | 'log';
export type HookCallback = (context: Record<string, unknown>) => unknown;

/** Triggers the embedded host can run. */
const SUPPORTED_TRIGGERS = [
  'httpTrigger',
  'orchestrationTrigger',
  'entityTrigger',
  'activityTrigger',
  'timerTrigger',
  'eventHubTrigger',
];
const SUPPORTED_EXTRA_BINDINGS = ['durableClient', 'orchestrationClient', 'http'];

/** Everything the app registered, process-wide (an app module is loaded once per process). */
export interface Registry {
  functions: Map<string, RegisteredFunction>;
  hooks: Map<HookName, HookCallback[]>;
  programmingModel?: ProgrammingModel;
  onLog?: (level: string, category: string, message: string) => void;
}

export const registry: Registry = { functions: new Map(), hooks: new Map() };

/** Thrown at registration when the app uses a trigger or binding the embedded host cannot run. */
export class UnsupportedBindingError extends Error {
  override name = 'UnsupportedBindingError';
}

function registerFunction(
  metadata: { name: string; bindings: Record<string, Binding>; retryOptions?: Record<string, unknown> },
  callback: (...args: unknown[]) => unknown,
): { dispose(): void } {
  const entries = Object.entries(metadata.bindings);
  const triggerEntry = entries.find(([, b]) => /trigger$/i.test(b.type));
  if (!triggerEntry) throw new UnsupportedBindingError(`Function "${metadata.name}" has no trigger binding.`);
  const [triggerName, trigger] = triggerEntry;
  if (!SUPPORTED_TRIGGERS.includes(trigger.type)) {
    throw new UnsupportedBindingError(
      `The embedded host does not support the "${trigger.type}" trigger of function "${metadata.name}" ` +
        `(supported: ${SUPPORTED_TRIGGERS.join(', ')}).`,
    );
  }
  if (trigger.type === 'timerTrigger' && scheduleIntervalMs(String(trigger.schedule ?? '')) === undefined) {
    throw new UnsupportedBindingError(
      `The embedded host runs timer schedules of a fixed interval only ("*/N * * * * *" or "0 */N * * * *"); ` +
        `function "${metadata.name}" has "${String(trigger.schedule)}".`,
    );
  }
  for (const [name, b] of entries) {
    if (b === trigger || SUPPORTED_EXTRA_BINDINGS.includes(b.type)) continue;
    throw new UnsupportedBindingError(
      `The embedded host does not support the "${b.type}" binding "${name}" of function "${metadata.name}" ` +
        `(supported besides the trigger: ${SUPPORTED_EXTRA_BINDINGS.join(', ')}).`,
    );
  }
  const key = metadata.name.toLowerCase();
  if (registry.functions.has(key)) {
    throw new UnsupportedBindingError(`A function named "${metadata.name}" is already registered.`);
  }
  registry.functions.set(key, {
    name: metadata.name,
    bindings: metadata.bindings,
    triggerName,
    trigger,
    ...(metadata.retryOptions ? { retry: metadata.retryOptions } : {}),
    callback,
  });
  return { dispose: () => registry.functions.delete(key) };
}

/** The module object `require('@azure/functions-core')` returns. */
export const coreModule = {
  version: '4.0.0-kubescribe-embedded',
  hostVersion: '4.0.0-kubescribe-embedded',
  setProgrammingModel(model: ProgrammingModel): void {
    registry.programmingModel = model;
  },
  getProgrammingModel(): ProgrammingModel | undefined {
    return registry.programmingModel;
  },
  registerFunction,
  registerHook(name: HookName, callback: HookCallback): { dispose(): void } {
    const list = registry.hooks.get(name) ?? [];
    list.push(callback);
    registry.hooks.set(name, list);
    return { dispose: () => list.splice(list.indexOf(callback) >>> 0, 1) };
  },
  log(level: string, category: string, message: string): void {
    registry.onLog?.(level, category, message);
  },
};

let installed = false;

/**
 * Makes `require('@azure/functions-core')` return {@link coreModule} for every later require in this
 * process (Node's module loader). Under jest, whose module registry bypasses Node's loader, map the
 * module with `jest.mock('@azure/functions-core', factory, { virtual: true })` instead.
 */
export function installCoreModule(): void {
  if (installed) return;
  installed = true;
  const loader = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
  const original = loader._load;
  loader._load = function load(this: unknown, request: string, ...rest: unknown[]) {
    if (request === '@azure/functions-core') return coreModule;
    return original.call(this, request, ...rest);
  };
}
