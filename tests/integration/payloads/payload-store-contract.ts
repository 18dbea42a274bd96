import {
  PayloadNotFound,
  PayloadRefInvalid,
  type PayloadStore,
  payloadRefOf,
} from '../../../shared/payloads';

/** The behaviour every PayloadStore promises, run against each implementation. */
export function describePayloadStoreContract(name: string, store: () => PayloadStore): void {
  describe(`${name}: the PayloadStore contract`, () => {
    const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  mode: fast\n';

    it('given a payload when stored then it is found under the SHA-256 of its bytes and reads back unchanged', async () => {
      const ref = await store().put(yaml);
      expect(ref).toBe(payloadRefOf(Buffer.from(yaml)));
      expect(ref).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(await store().has(ref)).toBe(true);
      expect(Buffer.from(await store().get(ref)).toString('utf8')).toBe(yaml);
    });

    it('given binary bytes when stored then every byte reads back', async () => {
      const bytes = Uint8Array.from({ length: 4096 }, (_, i) => (i * 7) % 256);
      const ref = await store().put(bytes);
      expect(Buffer.compare(Buffer.from(await store().get(ref)), Buffer.from(bytes))).toBe(0);
    });

    it('given the same payload stored twice, even at once, when stored then both get the same reference', async () => {
      const refs = await Promise.all([
        store().put('same'),
        store().put('same'),
        store().put(Buffer.from('same')),
      ]);
      expect(new Set(refs).size).toBe(1);
      expect(Buffer.from(await store().get(refs[0]!)).toString()).toBe('same');
    });

    it('given a reference nothing was stored under when read then it is not found', async () => {
      const ref = payloadRefOf(Buffer.from(`never stored ${name}`));
      expect(await store().has(ref)).toBe(false);
      await expect(store().get(ref)).rejects.toBeInstanceOf(PayloadNotFound);
    });

    it.each(['sha256:../../etc/passwd', 'sha1:abc', `sha256:${'A'.repeat(64)}`, ''])(
      'given the malformed reference %p when used then it is refused before touching storage',
      async (ref) => {
        await expect(store().get(ref)).rejects.toBeInstanceOf(PayloadRefInvalid);
        await expect(store().has(ref)).rejects.toBeInstanceOf(PayloadRefInvalid);
      },
    );

    it('given an empty payload when stored then it is a payload like any other', async () => {
      const ref = await store().put(new Uint8Array());
      expect((await store().get(ref)).length).toBe(0);
    });
  });
}
