export { createBlobPayloadStore } from './blob-payload-store';
export { PayloadCorrupt, PayloadNotFound, PayloadRefInvalid } from './errors';
export { createFilePayloadStore } from './file-payload-store';
export { openPayloadStore } from './open-payload-store';
export { type PayloadRef, payloadRefOf } from './payload-ref';
export type { PayloadStore } from './payload-store';
