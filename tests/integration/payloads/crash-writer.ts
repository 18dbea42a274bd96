// Child process for the crash test: stores distinct 16 MiB payloads until it is killed.
import { createFilePayloadStore } from '../../../shared/payloads';

const folder = process.argv[2];
if (!folder) throw new Error('usage: crash-writer <folder>');
const store = createFilePayloadStore({ folder });

async function writeForever(): Promise<void> {
  for (let i = 0; ; i++) {
    const bytes = Buffer.alloc(16 * 1024 * 1024, i % 251);
    bytes.writeUInt32BE(i, 0);
    await store.put(bytes);
  }
}

void writeForever();
