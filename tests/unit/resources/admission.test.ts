import { admissionResponse, normalizeAdmissionReview, PayloadInvalid } from '../../../shared/resources';
import { loadFixture } from './load-fixture';

type Review = { request: { object: { spec: Record<string, unknown>; metadata: Record<string, unknown> } } };

describe('AdmissionReviews from the validating webhook', () => {
  it('given the creation of a CommitRequest when normalized then a save is registered for its target with the submitter as author', () => {
    expect(normalizeAdmissionReview({ body: loadFixture('admission/commitrequest-create.json') })).toEqual({
      uid: '705ab4f5-6393-11e8-b7cc-42010a800002',
      save: {
        target: 'prod',
        id: 'c0ffee00-1111-4222-8333-444455556666',
        message: 'Raise checkout replicas for the sale\n\nTicket: SHOP-42',
        window: { attach: 'CurrentOrNext', attachTimeout: '2s', maxDuration: '3s' },
        author: {
          username: 'alice@example.com',
          uid: '7d1e-alice',
          groups: ['developers', 'system:authenticated'],
        },
        commitRequest: { namespace: 'shop', name: 'release-notes-x7k2p' },
      },
      ignored: [],
    });
  });

  it('given a dry-run creation when normalized then no save is registered', () => {
    const result = normalizeAdmissionReview({ body: loadFixture('admission/commitrequest-dryrun.json') });
    expect(result.save).toBeUndefined();
    expect(result.ignored).toEqual([expect.objectContaining({ reason: 'dry-run' })]);
  });

  it('given another resource when normalized then it is ignored as not a CommitRequest', () => {
    const result = normalizeAdmissionReview({ body: loadFixture('admission/configmap-create.json') });
    expect(result).toEqual({
      uid: '705ab4f5-6393-11e8-b7cc-42010a800004',
      ignored: [expect.objectContaining({ reason: 'not-a-commit-request' })],
    });
  });

  it('given an update of a CommitRequest when normalized then nothing is saved', () => {
    const body = loadFixture('admission/commitrequest-create.json') as { request: { operation: string } };
    body.request.operation = 'UPDATE';
    expect(normalizeAdmissionReview({ body }).ignored).toEqual([
      expect.objectContaining({ reason: 'not-a-create' }),
    ]);
  });

  it.each([
    [
      { target: 'prod', whenNothingToCommit: 'CommitEmpty' },
      'message: is required when whenNothingToCommit is CommitEmpty',
    ],
    [{ target: 'prod', window: { attachTimeout: '10m' } }, 'window.attachTimeout: must be at most 5m'],
    [
      { target: 'prod', window: { attach: 'Next', attachTimeout: '0s' } },
      'window.attachTimeout: must be more than 0s',
    ],
    [{ target: 'prod', message: '   ' }, 'message: must contain a non-whitespace character'],
    [{ target: 'prod', message: 'bell\u0007' }, 'message: must not contain control characters'],
    [{ target: '../prod' }, 'target: must name a kubescribe target'],
  ])(
    'given a CommitRequest spec %j when normalized then it is ignored as invalid, naming %p',
    (spec, expected) => {
      const body = loadFixture('admission/commitrequest-create.json') as Review;
      body.request.object.spec = spec;
      const result = normalizeAdmissionReview({ body });
      expect(result.save).toBeUndefined();
      expect(result.ignored).toEqual([
        expect.objectContaining({
          reason: 'invalid-commit-request',
          message: expect.stringContaining(expected),
        }),
      ]);
    },
  );

  it('given a CommitRequest without a uid when normalized then no save is registered', () => {
    const body = loadFixture('admission/commitrequest-create.json') as Review;
    delete body.request.object.metadata.uid;
    expect(normalizeAdmissionReview({ body }).ignored).toEqual([
      expect.objectContaining({ reason: 'no-object-uid' }),
    ]);
  });

  it('given a review without a request uid when normalized then it is refused', () => {
    const body = loadFixture('admission/commitrequest-create.json') as { request: { uid?: string } };
    delete body.request.uid;
    expect(() => normalizeAdmissionReview({ body })).toThrow(PayloadInvalid);
  });

  it('given any request uid when answered then the answer allows it and echoes the uid', () => {
    expect(admissionResponse('705ab4f5')).toEqual({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: { uid: '705ab4f5', allowed: true },
    });
  });
});
