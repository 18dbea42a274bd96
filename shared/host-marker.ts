/**
 * The environment variable the embedded host sets (to "1") in its process before it loads the app,
 * so the app can tell it is not on the Functions host. A leaf module: the app reads the name
 * without loading the host.
 */
export const EMBEDDED_HOST_VARIABLE = 'DURABLE_EMBEDDED_HOST';
