// The embedded durable host's public surface: start a host on a Functions app, with a clock.
export { type Clock, realClock, type VirtualClock, virtualClock } from './clock';
export { DataFolderInUse } from './data-lock';
export { type HostHandle, type HostOptions, startHost } from './host';
