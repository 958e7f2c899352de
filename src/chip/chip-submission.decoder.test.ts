import { ChipInputError } from './chip.errors';
import { decodeChipSubmission, MAX_DATA_GROUP_BYTES } from './chip-submission.decoder';

const b64 = (bytes: number[] | Buffer) => Buffer.from(bytes).toString('base64');
const valid = { sod: b64([0x77, 0x03, 0x30, 0x01, 0x00]), data_groups: { '1': b64([0x61, 0x00]), '2': b64([0x75, 0x00]) } };

function errorOf(body: unknown): ChipInputError {
  try {
    decodeChipSubmission(body);
  } catch (error) {
    if (error instanceof ChipInputError) return error;
    throw error;
  }
  throw new Error('expected a ChipInputError');
}

describe('decodeChipSubmission', () => {
  it('decodes the SOD and the data groups keyed by number', () => {
    const submission = decodeChipSubmission(valid);
    expect(submission.sod).toEqual(Buffer.from([0x77, 0x03, 0x30, 0x01, 0x00]));
    expect([...submission.dataGroups.keys()]).toEqual([1, 2]);
    expect(submission.dataGroups.get(2)).toEqual(Buffer.from([0x75, 0x00]));
  });

  it('accepts base64 without padding', () => {
    expect(decodeChipSubmission({ ...valid, sod: 'd3MwAQA' }).sod).toEqual(Buffer.from([0x77, 0x73, 0x30, 0x01, 0x00]));
  });

  it.each([
    ['a non-object body', 'text', undefined],
    ['an array body', [], undefined],
    ['a missing sod', { data_groups: valid.data_groups }, 'sod'],
    ['a numeric sod', { ...valid, sod: 42 }, 'sod'],
    ['an empty sod', { ...valid, sod: '' }, 'sod'],
    ['sod with characters outside base64', { ...valid, sod: 'd3M*AQA=' }, 'sod'],
    ['sod with padding in the middle', { ...valid, sod: 'd3=MwAQA' }, 'sod'],
    ['sod of impossible base64 length', { ...valid, sod: 'd3MwA' }, 'sod'],
    ['sod with non-canonical trailing bits', { ...valid, sod: 'd3MwAQB=' }, 'sod'],
    ['base64url instead of base64', { ...valid, sod: 'd3Mw_-A=' }, 'sod'],
    ['data_groups as an array', { ...valid, data_groups: [valid.data_groups['1']] }, 'data_groups'],
    ['data group 0', { ...valid, data_groups: { ...valid.data_groups, '0': valid.data_groups['1'] } }, 'data_groups.0'],
    ['data group 17', { ...valid, data_groups: { ...valid.data_groups, '17': valid.data_groups['1'] } }, 'data_groups.17'],
    ['data group -1', { ...valid, data_groups: { ...valid.data_groups, '-1': valid.data_groups['1'] } }, 'data_groups.-1'],
    ['data group 01', { ...valid, data_groups: { ...valid.data_groups, '01': valid.data_groups['1'] } }, 'data_groups.01'],
    ['data group DG2', { ...valid, data_groups: { ...valid.data_groups, DG2: valid.data_groups['1'] } }, 'data_groups.DG2'],
    ['a data group that is not base64', { ...valid, data_groups: { '1': 'not base64!' } }, 'data_groups.1'],
    ['no DG1', { ...valid, data_groups: { '2': valid.data_groups['2'] } }, 'data_groups.1'],
  ])('rejects %s with invalid_request', (_case, body, field) => {
    const error = errorOf(body);
    expect(error.code).toBe('invalid_request');
    expect(error.field).toBe(field);
  });

  it.each(['3', '4'])('refuses DG%s (fingerprints, iris) with data_group_not_allowed before decoding it', (group) => {
    expect(errorOf({ ...valid, data_groups: { ...valid.data_groups, [group]: valid.data_groups['2'] } })).toMatchObject({ code: 'data_group_not_allowed', field: `data_groups.${group}` });
    // Not even read: bytes that are not base64 get the same refusal.
    expect(errorOf({ ...valid, data_groups: { ...valid.data_groups, [group]: 'not base64!' } }).code).toBe('data_group_not_allowed');
  });

  it('rejects a 5 MiB data group with payload_too_large before decoding it', () => {
    const huge = 'A'.repeat(5 * 1024 * 1024);
    const error = errorOf({ ...valid, data_groups: { '1': valid.data_groups['1'], '2': huge } });
    expect(error.code).toBe('payload_too_large');
    expect(error.field).toBe('data_groups.2');
  });

  it('rejects submissions whose data groups together exceed the total limit', () => {
    const big = b64(Buffer.alloc(MAX_DATA_GROUP_BYTES, 1));
    const groups = Object.fromEntries(['1', '2', '5', '6', '7'].map((n) => [n, big]));
    expect(errorOf({ ...valid, data_groups: groups }).code).toBe('payload_too_large');
  });
});
